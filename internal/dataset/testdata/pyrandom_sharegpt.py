# Golden values for internal/dataset/pyrandom_sharegpt.go, printed by
# CPython's random module. Run with Debian's python3:
#   python3 internal/dataset/testdata/pyrandom_sharegpt.py > internal/dataset/testdata/pyrandom_sharegpt.json
import json
import random

out = []
for seed in [0, 1, 42, -7, 2**32 + 5, 2**63 - 1]:
    r = random.Random(seed)
    bits = [r.getrandbits(k) for k in (1, 5, 31, 32, 33, 48, 64)]
    r = random.Random(seed)
    below = [r._randbelow(n) for n in (1, 2, 3, 10, 1000, 90000, 2**31 + 1, 2**40 + 3)]
    r = random.Random(seed)
    xs = list(range(20))
    r.shuffle(xs)
    choices = [r.choice(range(7)) for _ in range(10)]
    out.append({"seed": seed, "getrandbits": bits, "randbelow": below,
                "shuffle20": xs, "choice7_after": choices})
print(json.dumps(out, indent=1))
