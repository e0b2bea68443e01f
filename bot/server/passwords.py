"""Password hashes: scrypt with a per-user random salt; never the password itself.

The stored text names its cost parameters, so the cost can be raised later
(or lowered for tests) without breaking old accounts.

>>> stored = hash_password("secret", n=2**10)
>>> stored.startswith("scrypt$1024$8$1$"), verify_password("secret", stored), verify_password("Secret", stored)
(True, True, False)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

DEFAULT_N = 2**14  # scrypt's interactive-login cost: 16 MiB, ~50 ms


def hash_password(password: str, *, n: int = DEFAULT_N, r: int = 8, p: int = 1) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=256 * n * r + (1 << 20), dklen=32)
    return f"scrypt${n}${r}${p}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    """Constant-time check; a malformed stored hash never matches."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = bytes.fromhex(digest)
        actual = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                                maxmem=256 * int(n) * int(r) + (1 << 20), dklen=len(expected))
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)
