from setuptools import setup; setup(cffi_modules=["engine/_build.py:ffi"])
