from setuptools import Extension, setup

# engine._core: the C engine through cffi; engine._fast: the Python API's per-position
# calls as plain CPython functions (a cffi call costs as much as a 0-ply evaluation)
setup(cffi_modules=["engine/_build.py:ffi"],
      ext_modules=[Extension("engine._fast", ["engine/_fast.c"], py_limited_api=True,
                             extra_compile_args=["-O2", "-pthread"], extra_link_args=["-pthread"])])
