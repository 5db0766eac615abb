# Golden values for internal/dataset/sharegpt_test.go.
#
# Writes sharegpt_fixture.json (a small ShareGPT file: conversations of
# varied lengths, some dropped by vLLM's filters, one with fewer than two
# turns, one without "conversations", one with an image) and
# sharegpt_golden.json: the requests vLLM's ShareGPTDataset.sample selects
# from it for several settings, reproduced here step by step (load/filter,
# random.seed + random.shuffle, the walk with is_valid_sequence, then
# maybe_oversample_requests with random.seed + random.choice).
#
# vLLM measures lengths with the model's tokenizer; without Python's
# tokenizers this uses a tokenizer whose counts are trivial: the number of
# whitespace-separated words, plus one for a BOS token because vLLM encodes
# with special tokens (tokenizer(prompt).input_ids). The Go test uses a
# tokenizer with exactly these counts, so only the selection is compared.
#
# Run with Debian's python3 from the repository root:
#   python3 internal/dataset/testdata/sharegpt_golden.py
import json
import os
import random

here = os.path.dirname(os.path.abspath(__file__))


def words(rng, n):
    return " ".join("w%d" % rng.randrange(1000) for _ in range(n))


def fixture():
    rng = random.Random(12345)
    data = []
    for i in range(40):
        # Mostly valid lengths, with some outside vLLM's bounds.
        p = rng.choice([1, 2, 3, 5, 8, 20, 60, 200, 700, 1023, 1024, 1100])
        c = rng.choice([1, 2, 3, 4, 10, 50, 300, 1000, 1500])
        turns = [{"from": "human", "value": "p%d %s" % (i, words(rng, p - 1)) if p > 1 else "p%d" % i},
                 {"from": "gpt", "value": words(rng, c)}]
        if i % 7 == 3:
            turns.append({"from": "human", "value": "more"})
        entry = {"id": "c%d" % i, "conversations": turns}
        if i == 5:
            entry["conversations"] = turns[:1]
        if i == 9:
            entry = {"id": "c9", "messages": turns}
        if i == 11:
            entry["image"] = "img/cat.png"
        data.append(entry)
    return data


def tokens(s):
    return len(s.split()) + 1


def is_valid_sequence(prompt_len, output_len, skip_min_output_len_check):
    return not (prompt_len < 4 or (not skip_min_output_len_check and output_len < 4)
                or prompt_len > 1024 or prompt_len + output_len > 2048)


def sample(data, seed, num, output_len=None, shuffle=True, oversample=True, prefix=""):
    data = [e for e in data if "conversations" in e and len(e["conversations"]) >= 2]
    random.seed(seed)
    if shuffle:
        random.shuffle(data)
    out = []
    for e in data:
        if len(out) >= num:
            break
        prompt, completion = e["conversations"][0]["value"], e["conversations"][1]["value"]
        pl = tokens(prompt)
        ol = tokens(completion) if output_len is None else output_len
        if not is_valid_sequence(pl, ol, output_len is not None):
            continue
        out.append({"id": prefix + str(len(out)), "prompt": prompt, "prompt_len": pl,
                    "output_len": ol, "image": e.get("image")})
    if oversample and len(out) < num:
        random.seed(seed)
        n = len(out)
        additional = []
        for i in range(num - n):
            r = dict(random.choice(out))
            r["id"] = prefix + str(n + i)
            additional.append(r)
        out.extend(additional)
    return out


data = fixture()
with open(os.path.join(here, "sharegpt_fixture.json"), "w") as f:
    json.dump(data, f, indent=1)
cases = []
for name, kw in [
    ("seed0", dict(seed=0, num=10)),
    ("seed7_oversample", dict(seed=7, num=50, prefix="r-")),
    ("no_shuffle", dict(seed=0, num=8, shuffle=False)),
    ("fixed_output", dict(seed=3, num=30, output_len=1500)),
    ("no_oversample", dict(seed=1, num=50, oversample=False)),
]:
    reqs = sample(data, **kw)
    cases.append({"name": name, "seed": kw["seed"], "num_prompts": kw["num"],
                  "id_prefix": kw.get("prefix", ""), "output_len": kw.get("output_len"),
                  "disable_shuffle": not kw.get("shuffle", True),
                  "no_oversample": not kw.get("oversample", True),
                  "requests": [{"id": r["id"], "prompt_head": " ".join(r["prompt"].split()[:2]),
                                "prompt_len": r["prompt_len"], "output_len": r["output_len"],
                                "image": r["image"]} for r in reqs]})
with open(os.path.join(here, "sharegpt_golden.json"), "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
