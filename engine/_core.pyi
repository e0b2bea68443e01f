# The cffi extension built by engine/_build.py (API mode): its objects are dynamic.
from typing import Any

ffi: Any
lib: Any
