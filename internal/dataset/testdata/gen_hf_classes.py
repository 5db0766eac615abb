#!/usr/bin/env python3
"""Writes hf_classes_golden.json, the expected requests of vLLM's text-only
Hugging Face dataset classes (hfclasses_test.go), and the rows they come
from: the Go test feeds the same rows, in the same order, to each class's
Sample.

vLLM's Python client cannot run here (no vllm, no datasets library, no
Hugging Face tokenizers), so this script re-states the sample() of vLLM's
InstructCoderDataset, MTBenchDataset, HumanEvalDataset, GSM8KDataset,
ConversationDataset, AIMODataset, NextEditPredictionDataset,
BlazeditDataset, MLPerfDataset, MultiModalConversationDataset,
VisionArenaDataset and MMStarDataset (with image path strings),
MMVUDataset (with video URL strings) and ASRDataset (with decoded audio
arrays), with is_valid_sequence and
BenchmarkDataset.maybe_oversample_requests
(vllm/benchmarks/datasets/datasets.py at 003cf0297cf6), step for step,
with CPython's own random module and a tokenizer whose counts are trivial:
the WS of gen_files.py (one token per str.split() word, a BOS when special
tokens are added, role markers as chat template), which the Go tests
implement identically (wsTokenizer). The rows stand for a split after
HuggingFaceDataset.load_data's shuffle, which is the loader's and is not
re-stated here. Given the same tokenizer and rows, vLLM's classes make the
same calls in the same order, so the prompts, lengths, ids and order below
are vLLM's.

Run with Debian's python3:

    /usr/bin/python3 internal/dataset/testdata/gen_hf_classes.py > internal/dataset/testdata/hf_classes_golden.json

The tests only read hf_classes_golden.json; they never run Python.
"""
import json
import os
import random
import sys
from dataclasses import dataclass, replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_files import WS, Encoding  # noqa: E402  (the same whitespace tokenizer and chat template)


class Tok(WS):
    """WS, with transformers' add_special_tokens argument (MLPerf measures
    its reference answers without the BOS)."""

    def __call__(self, text, add_special_tokens=True):
        return Encoding(([1] if add_special_tokens else []) + [2] * len(text.split()))


@dataclass
class Req:
    prompt: object
    prompt_len: int
    expected_output_len: int
    request_id: str
    mm: object = None
    audio_seconds: float = None


def is_valid_sequence(prompt_len, output_len, min_len=4, max_prompt_len=1024, max_total_len=2048,
                      skip_min_output_len_check=False):
    return not (prompt_len < min_len
                or (not skip_min_output_len_check and output_len < min_len)
                or prompt_len > max_prompt_len
                or prompt_len + output_len > max_total_len)


def oversample(reqs, n, seed, prefix, no_oversample):
    if no_oversample:
        return
    if len(reqs) < n:
        random.seed(seed)
        needed = n - len(reqs)
        extra = [replace(random.choice(reqs), request_id=prefix + str(len(reqs) + i)) for i in range(needed)]
        reqs.extend(extra)
    ids = [r.request_id for r in reqs]
    if len(ids) != len(set(ids)):
        raise ValueError("Duplicate request_id found in the sampled requests.")


def template(tok, prompt, skip):
    if skip:
        return prompt
    return tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True, tokenize=False)


def fixed_output(rows, tok, n, output_len, skip, prefix, default, prompt_of):
    """MT-Bench, HumanEval, GSM8K: enumerate, break at n, template unless
    skipped, fixed output length."""
    output_len = output_len if output_len is not None else default
    reqs = []
    for i, item in enumerate(rows):
        if len(reqs) >= n:
            break
        prompt = template(tok, prompt_of(item), skip)
        reqs.append(Req(prompt, len(tok(prompt).input_ids), output_len, prefix + str(i)))
    return reqs


def instruct_coder(rows, tok, n, output_len=None, skip=False, prefix="", **_):
    output_len = output_len if output_len is not None else 200
    reqs = []
    # sample_prompts: self.data.take(n)
    taken = rows[:max(n, 0)]
    for i, item in enumerate(taken):
        prompt = (f"{item['input']}\n\n{item['instruction']} Just output "
                  "the code, do not include any explanation.")
        text = template(tok, prompt, skip)
        reqs.append(Req(text, len(tok(text).input_ids), output_len, prefix + str(i)))
    return reqs


def mt_bench(rows, tok, n, output_len=None, skip=False, prefix="", **_):
    return fixed_output(rows, tok, n, output_len, skip, prefix, 256, lambda x: x["turns"][0])


def humaneval(rows, tok, n, output_len=None, skip=False, prefix="", **_):
    return fixed_output(rows, tok, n, output_len, skip, prefix, 256, lambda x: x["prompt"])


def gsm8k(rows, tok, n, output_len=None, skip=False, prefix="", **_):
    return fixed_output(rows, tok, n, output_len, skip, prefix, 256, lambda x: x["question"])


def conversation(rows, tok, n, output_len=None, prefix="", mm_chat=False, **_):
    filtered = [x for x in rows if len(x["conversations"]) >= 2]
    reqs, ind = [], 0
    dynamic = output_len is None
    for item in filtered:
        if len(reqs) >= n:
            break
        conv = item["conversations"]
        prompt, completion = conv[0]["value"], conv[1]["value"]
        prompt_len = len(tok(prompt).input_ids)
        completion_len = len(tok(completion).input_ids)
        output_len = completion_len if dynamic else output_len
        assert isinstance(output_len, int) and output_len > 0
        if dynamic and not is_valid_sequence(prompt_len, completion_len):
            continue
        if mm_chat:
            prompt = [{"role": "user", "content": [{"text": prompt, "type": "text"}]}]
        reqs.append(Req(prompt, prompt_len, output_len, prefix + str(ind)))
        ind += 1
    return reqs


def process_image(s):
    """process_image of an image path or URL string."""
    url = s if s.startswith(("http://", "https://", "file://", "data:image/")) else "file://" + s
    return {"type": "image_url", "image_url": {"url": url}}


def mm_conversation(rows, tok, n, output_len=None, prefix="", mm_chat=False, **_):
    """MultiModalConversationDataset.sample (rows' images are path strings
    here: the decoded-image path, which needs PIL, is tested in Go)."""
    filtered = [x for x in rows if len(x["conversations"]) >= 2]
    reqs, ind = [], 0
    dynamic = output_len is None
    for item in filtered:
        if len(reqs) >= n:
            break
        conv = item["conversations"]
        prompt, completion = conv[0]["value"], conv[1]["value"]
        prompt_len = len(tok(prompt).input_ids)
        completion_len = len(tok(completion).input_ids)
        output_len = completion_len if dynamic else output_len
        if dynamic and not is_valid_sequence(prompt_len, completion_len):
            continue
        mm = process_image(item["image"]) if "image" in item else None
        if mm_chat:
            prompt = [{"role": "user", "content": [{"text": prompt, "type": "text"}] + ([mm] if mm else [])}]
        reqs.append(Req(prompt, prompt_len, output_len, prefix + str(ind), mm))
        ind += 1
    return reqs


def vision_arena(rows, tok, n, output_len=None, prefix="", mm_chat=False, **_):
    """VisionArenaDataset.sample for lmarena-ai/VisionArena-Chat."""
    output_len = output_len if output_len is not None else 128
    reqs = []
    for i, item in enumerate(rows):
        if len(reqs) >= n:
            break
        prompt = item["conversation"][0][0]["content"]
        mm = process_image(item["images"][0])
        prompt_len = len(tok(prompt).input_ids)
        if mm_chat:
            prompt = [{"role": "user", "content": [{"text": prompt, "type": "text"}, mm]}]
        reqs.append(Req(prompt, prompt_len, output_len, prefix + str(i), mm))
    return reqs


MMVU_REMOTE = "https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main"
# The local snapshot root: the Go test's repository answers Local(name)
# with this root joined to the name.
MMVU_LOCAL = "/hf/snapshot"


def process_video(s):
    """process_video of a video path or URL string."""
    url = s if s.startswith(("http://", "https://", "file://")) else "file://" + s
    return {"type": "video_url", "video_url": {"url": url}}


def mmvu(rows, tok, n, output_len=None, prefix="", mm_chat=False, **_):
    """MMVUDataset.sample (its __init__'s snapshot_download stands as
    MMVU_LOCAL)."""
    output_len = output_len if output_len is not None else 128
    reqs = []
    for i, item in enumerate(rows):
        if len(reqs) >= n:
            break
        prompt = item["question"] + " " + (" ".join(f"{k}.{v}" for k, v in item["choices"].items()))
        mm = process_video(item["video"].replace(MMVU_REMOTE, MMVU_LOCAL))
        prompt_len = len(tok(prompt).input_ids)
        if mm_chat:
            prompt = [{"role": "user", "content": [{"text": prompt, "type": "text"}, mm]}]
        reqs.append(Req(prompt, prompt_len, output_len, prefix + str(i), mm))
    return reqs


def mmstar(rows, tok, n, output_len=None, prefix="", mm_chat=False, **_):
    """MMStarDataset.sample."""
    output_len = output_len if output_len is not None else 128
    reqs = []
    for ind, item in enumerate(rows):
        if len(reqs) >= n:
            break
        full_q = item.get("question", "")
        question_text = full_q.split("Options:", 1)[0].strip()
        mm = process_image(item["image"])
        prompt_len = len(tok(question_text).input_ids)
        if mm_chat:
            prompt = [{"role": "user", "content": [{"text": question_text, "type": "text"}, mm]}]
        else:
            prompt = question_text
        reqs.append(Req(prompt, prompt_len, output_len, prefix + str(ind), mm))
    return reqs


def asr(rows, tok, n, output_len=None, prefix="", **kwargs):
    """ASRDataset.sample, with decoded audio arrays (WS has no name_or_path:
    the empty prompt); duration = len(y) / sr (librosa.get_duration)."""
    output_len = output_len if output_len is not None else 1024
    prompt = ""
    prompt_len = len(tok(prompt).input_ids)
    reqs, ind = [], 0
    lo = float(kwargs.get("asr_min_audio_len_sec") or 0.0)
    hi = float(kwargs.get("asr_max_audio_len_sec") or float("inf"))
    for item in rows:
        if len(reqs) >= n:
            break
        audio = item["audio"]
        y, sr = audio["array"], audio["sampling_rate"]
        duration = len(y) / sr
        if duration < lo or duration > hi:
            continue
        reqs.append(Req(prompt, prompt_len, output_len, prefix + str(ind), audio_seconds=duration))
        ind += 1
    return reqs


def aimo(rows, tok, n, output_len=None, prefix="", **_):
    reqs, ind = [], 0
    dynamic = output_len is None
    for item in rows:
        if len(reqs) >= n:
            break
        prompt, completion = item["problem"], item["solution"]
        prompt_len = len(tok(prompt).input_ids)
        completion_len = len(tok(completion).input_ids)
        output_len = completion_len if dynamic else output_len
        assert isinstance(output_len, int) and output_len > 0
        if dynamic and not is_valid_sequence(prompt_len, completion_len, max_prompt_len=2048, max_total_len=32000):
            continue
        reqs.append(Req(prompt, prompt_len, output_len, prefix + str(ind)))
        ind += 1
    return reqs


ZETA_PROMPT = """### Instruction:
You are a code completion assistant and your task is to analyze user edits and then rewrite an excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the cursor location.

### User Edits:

{}

### User Excerpt:

{}

### Response:

"""


def zeta(rows, tok, n, prefix="", **_):
    reqs = []
    for i, sample in enumerate(rows):
        prompt = ZETA_PROMPT.format(sample["events"], sample["input"])
        output = sample["output"]
        expected = output[output.find("<|editable_region_start|>"):]
        reqs.append(Req(prompt, len(tok(prompt).input_ids), len(tok(expected).input_ids), prefix + str(i)))
        if len(reqs) >= n:
            break
    return reqs


def blazedit(rows, tok, n, output_len=None, skip=False, prefix="", min_distance=0.0, max_distance=1.0, **_):
    output_len = output_len if output_len is not None else 4000
    reqs = []
    for i, item in enumerate(rows):
        if len(reqs) >= n:
            break
        code, change_request, norm_distance = item["code"], item["change_request"], item["norm_distance"]
        if norm_distance < min_distance or norm_distance > max_distance:
            continue
        prompt = f"""Given a code file, please apply the change requests and generate the new file.

Original file:
```python
{code}
```

Change request:
{change_request}

Please generate the new code file in the "New file" section below."""
        prompt = template(tok, prompt, skip)
        reqs.append(Req(prompt, len(tok(prompt).input_ids), output_len, prefix + str(i)))
    return reqs


def mlperf(rows, tok, n, output_len=None, prefix="", **_):
    reqs, ind = [], 0
    for item in rows:
        if len(reqs) >= n:
            break
        messages = [{"role": "system", "content": item["system_prompt"]},
                    {"role": "user", "content": item["question"]}]
        prompt = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prompt_len = len(tok(prompt).input_ids)
        ref = len(tok(item["output"], add_special_tokens=False).input_ids)
        expected = ref if output_len is None else output_len
        if not is_valid_sequence(prompt_len, expected):
            continue
        reqs.append(Req(prompt, prompt_len, expected, prefix + str(ind)))
        ind += 1
    return reqs


# The rows: made up, in the shape of each dataset's columns, with lengths
# that exercise the filters. Words are drawn from a fixed generator.
W = random.Random(2026)
VOCAB = ("def return value list index loop print count total while result item " +
         "über naïve 数据 résumé x y z if else for in of the a to").split()


def words(k):
    # Long texts (for the length filters) take one-letter words, to keep
    # the golden file small.
    vocab = VOCAB if k < 500 else "a b x y z".split()
    return " ".join(W.choice(vocab) for _ in range(k))


ROWS = {
    "InstructCoderDataset": [
        {"input": "def f(x):\n    return x" + str(i) + "\n" + words(3 + 4 * i), "instruction": "Add a docstring. " + words(i + 1),
         "output": words(5)} for i in range(7)
    ],
    "MTBenchDataset": [
        {"question_id": 81 + i, "category": "writing", "turns": [words(2 + 3 * i), "Rewrite it. " + words(4)]} for i in range(6)
    ],
    "HumanEvalDataset": [
        {"task_id": "HumanEval/%d" % i, "prompt": "def task_%d(n):\n    \"\"\"%s\"\"\"\n" % (i, words(2 + i)),
         "canonical_solution": "    return n\n", "entry_point": "task_%d" % i} for i in range(6)
    ],
    "GSM8KDataset": [
        {"question": words(6 + 2 * i) + "?", "answer": words(9) + " #### " + str(i)} for i in range(6)
    ],
    "ConversationDataset": [
        {"id": "c0", "conversations": [{"from": "human", "value": words(12)}, {"from": "gpt", "value": words(30)}]},
        {"id": "c1", "conversations": [{"from": "human", "value": words(8)}]},
        {"id": "c2", "conversations": [{"from": "human", "value": "hi there"}, {"from": "gpt", "value": words(9)}]},
        {"id": "c3", "conversations": [{"from": "human", "value": words(20)}, {"from": "gpt", "value": "ok sure"},
                                       {"from": "human", "value": words(3)}]},
        {"id": "c4", "conversations": []},
        {"id": "c5", "conversations": [{"from": "human", "value": words(1100)}, {"from": "gpt", "value": words(10)}]},
        {"id": "c6", "conversations": [{"from": "human", "value": words(900)}, {"from": "gpt", "value": words(1200)}]},
        {"id": "c7", "conversations": [{"from": "human", "value": words(5)}, {"from": "gpt", "value": words(7)}]},
        {"id": "c8", "conversations": [{"from": "human", "value": words(40)}, {"from": "gpt", "value": words(64)}]},
        {"id": "c9", "conversations": [{"from": "human", "value": words(3)}, {"from": "gpt", "value": words(3)}]},
    ],
    "AIMODataset": [
        {"problem": words(25), "solution": words(140), "messages": []},
        {"problem": "Find x.", "solution": words(20), "messages": []},
        {"problem": words(2100), "solution": words(30), "messages": []},
        {"problem": words(60), "solution": "x=2", "messages": []},
        {"problem": words(1500), "solution": words(600), "messages": []},
        {"problem": words(9), "solution": words(11), "messages": []},
        {"problem": words(33), "solution": words(3), "messages": []},
    ],
    "NextEditPredictionDataset": [
        {"events": "User edited file.py:\n" + words(6), "input": "<|editable_region_start|>\n" + words(10) + "\n<|editable_region_end|>",
         "output": "```file.py\n<|editable_region_start|>\n" + words(12) + "\n<|editable_region_end|>\n```"},
        {"events": "", "input": words(4), "output": words(7) + " 数据"},
        {"events": words(3), "input": words(15), "output": ""},
        {"events": words(8), "input": words(2), "output": "prefix " + "<|editable_region_start|>" + words(5)},
    ],
    "BlazeditDataset": [
        {"code": "import os\n" + words(10 + 5 * i), "change_request": "Rename " + words(2 + i), "norm_distance": d}
        for i, d in enumerate([0.05, 0.25, 0.5, 0.75, 1.0, 0.3, 0.6, 0.0])
    ],
    "MLPerfDataset": [
        {"system_prompt": "You are helpful.", "question": words(20), "output": words(50)},
        {"system_prompt": "", "question": "Hi", "output": words(10)},
        {"system_prompt": "Be brief.", "question": words(1100), "output": words(10)},
        {"system_prompt": "You are helpful.", "question": words(30), "output": "Yes."},
        {"system_prompt": "You are helpful.", "question": words(500), "output": words(1600)},
        {"system_prompt": "Answer in French.", "question": words(12), "output": words(8)},
        {"system_prompt": "You are helpful.", "question": words(7), "output": words(300)},
    ],
    "MultiModalConversationDataset": [
        {"id": "m0", "image": "imgs/m0.jpg", "conversations": [{"from": "human", "value": words(12)}, {"from": "gpt", "value": words(30)}]},
        {"id": "m1", "conversations": [{"from": "human", "value": words(8)}, {"from": "gpt", "value": words(9)}]},
        {"id": "m2", "image": "https://example.com/m2.png", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": words(9)}]},
        {"id": "m3", "image": "imgs/m3.jpg", "conversations": [{"from": "human", "value": words(20)}]},
        {"id": "m4", "image": "imgs/m4.jpg", "conversations": [{"from": "human", "value": words(5)}, {"from": "gpt", "value": words(7)}]},
        {"id": "m5", "image": "file:///data/m5.jpg", "conversations": [{"from": "human", "value": words(40)}, {"from": "gpt", "value": words(64)}]},
    ],
    "VisionArenaDataset": [
        {"conversation": [[{"role": "user", "content": words(4 + i) + "?"}, {"role": "assistant", "content": words(9)}]],
         "images": ["imgs/va%d.png" % i, "imgs/other.png"]} for i in range(6)
    ],
    # Choices in key order, as MMVU has them (vbench sorts the keys).
    "MMVUDataset": [
        {"id": "mmvu_%d" % i, "question": words(3 + i) + "?",
         "choices": {k: words(1 + (i + j) % 3) for j, k in enumerate("ABCD"[:2 + i % 3])},
         "video": [MMVU_REMOTE + "/videos/Biology/%d.mp4" % i, "https://example.com/clip%d.mp4" % i, "local/v%d.mp4" % i][i % 3]}
        for i in range(6)
    ],
    # Clips of 0.25 to 3 s at 200 Hz (silence: the samples do not matter).
    "ASRDataset": [
        {"audio": {"array": [0.0] * int(200 * d), "sampling_rate": 200}, "text": words(3)}
        for d in (1.0, 0.25, 3.0, 0.5, 2.0, 1.5, 0.75)
    ],
    "MMStarDataset": [
        {"index": i, "question": ("  " if i % 2 else "") + words(2 + i) + "?\nOptions: A: " + words(2) + ", B: " + words(1) +
         ("\nOptions: again" if i == 3 else ""), "image": "imgs/star%d.png" % i, "answer": "A"} for i in range(5)
    ] + [{"index": 5, "question": "No options here ", "image": "imgs/star5.png", "answer": "B"}],
}

SAMPLE = {
    "InstructCoderDataset": instruct_coder, "MTBenchDataset": mt_bench, "HumanEvalDataset": humaneval,
    "GSM8KDataset": gsm8k, "ConversationDataset": conversation, "AIMODataset": aimo,
    "NextEditPredictionDataset": zeta, "BlazeditDataset": blazedit, "MLPerfDataset": mlperf,
    "MultiModalConversationDataset": mm_conversation, "VisionArenaDataset": vision_arena,
    "MMVUDataset": mmvu, "MMStarDataset": mmstar, "ASRDataset": asr,
}

# Cases: n is num_prompts; seed the oversampling seed (--seed); output_len
# --hf-output-len; skip --skip-chat-template; prefix --request-id-prefix;
# mm_chat --enable-multimodal-chat; min/max_distance the blazedit flags.
COMMON = [
    dict(name="first_3", n=3),
    dict(name="oversampled_seed7", n=11, seed=7, prefix="hf-"),
    dict(name="hf_output_len", n=4, output_len=17),
    dict(name="no_oversample", n=50, no_oversample=True),
]
CASES = {
    "InstructCoderDataset": COMMON + [dict(name="skip_chat_template", n=5, skip=True), dict(name="none", n=0)],
    "MTBenchDataset": COMMON + [dict(name="skip_chat_template", n=6, skip=True)],
    "HumanEvalDataset": COMMON + [dict(name="skip_chat_template", n=2, skip=True, prefix="he-")],
    "GSM8KDataset": COMMON + [dict(name="skip_chat_template", n=9, skip=True, seed=3)],
    "ConversationDataset": COMMON + [dict(name="multimodal_chat", n=3, mm_chat=True),
                                     dict(name="fixed_output_keeps_short", n=8, output_len=5, seed=1)],
    "AIMODataset": COMMON + [dict(name="fixed_output_keeps_long", n=7, output_len=64)],
    "NextEditPredictionDataset": COMMON + [dict(name="zero_still_one", n=0),
                                           dict(name="ignores_hf_output_len_oversampled", n=6, output_len=9, seed=5)],
    "BlazeditDataset": [
        dict(name="first_3", n=3),
        dict(name="distance_window", n=4, min_distance=0.2, max_distance=0.6),
        dict(name="distance_window_no_oversample", n=9, min_distance=0.25, max_distance=0.75, no_oversample=True),
        dict(name="hf_output_len_skip", n=2, output_len=123, skip=True),
        dict(name="all_eight", n=8, prefix="b-"),
        # Ids are row positions, so the copies' ids (len + i) can collide:
        # vLLM raises its duplicate request_id error.
        dict(name="duplicate_ids", n=6, min_distance=0.2, max_distance=0.8, seed=2),
        dict(name="oversampled_without_collision", n=9, seed=4),
    ],
    "MultiModalConversationDataset": COMMON + [dict(name="multimodal_chat", n=3, mm_chat=True)],
    "VisionArenaDataset": COMMON + [dict(name="multimodal_chat", n=2, mm_chat=True, prefix="va-")],
    "MMVUDataset": COMMON + [dict(name="multimodal_chat", n=4, mm_chat=True)],
    "MMStarDataset": COMMON + [dict(name="multimodal_chat", n=3, mm_chat=True, prefix="ms-")],
    "ASRDataset": COMMON + [dict(name="min_max", n=3, asr_min_audio_len_sec=0.5, asr_max_audio_len_sec=2.0),
                            dict(name="min_oversampled", n=6, seed=4, asr_min_audio_len_sec=1.0, prefix="a-"),
                            dict(name="zero_max_is_none", n=7, asr_max_audio_len_sec=0)],
    "MLPerfDataset": COMMON + [dict(name="fixed_output_filtered_too", n=7, output_len=3),
                               dict(name="fixed_output_long", n=7, output_len=1500, seed=9)],
}


def dump(r):
    d = {"request_id": r.request_id, "prompt_len": r.prompt_len, "expected_output_len": r.expected_output_len}
    if r.audio_seconds is not None:
        d["audio_seconds"] = r.audio_seconds
    if isinstance(r.prompt, list):
        d["prompt"] = r.prompt[0]["content"][0]["text"]
        d["messages"] = r.prompt
    else:
        d["prompt"] = r.prompt
        if r.mm is not None and "video_url" in r.mm:
            d["videos"] = [r.mm["video_url"]["url"]]
        elif r.mm is not None:
            d["images"] = [r.mm["image_url"]["url"]]
    return d


def main():
    tok = Tok()
    out = {"python": sys.version.split()[0], "classes": {}}
    for cls, rows in ROWS.items():
        cases = []
        for c in CASES[cls]:
            kw = {k: v for k, v in c.items() if k not in ("name", "seed", "no_oversample")}
            reqs = SAMPLE[cls](rows, tok, **kw)
            case = dict(c)
            try:
                oversample(reqs, c["n"], c.get("seed", 0), c.get("prefix", ""), c.get("no_oversample", False))
                case["requests"] = [dump(r) for r in reqs]
            except (ValueError, IndexError) as e:
                # IndexError: random.choice of no requests.
                case["error"] = type(e).__name__ + ": " + str(e)
            cases.append(case)
        out["classes"][cls] = {"rows": rows, "cases": cases}
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
