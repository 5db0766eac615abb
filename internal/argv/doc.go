// Package argv maps `vllm bench serve` command lines onto vbench scenarios
// and back.
//
// [Parse] reads the arguments of vllm bench serve (the words after
// "serve") as vLLM's FlexibleArgumentParser does: --flag value and
// --flag=value, underscores for dashes in names, argparse's unambiguous
// prefixes, nargs flags (--header, --metadata, --goodput), --config
// FILE.yaml expanded under the command line, dotted JSON keys
// (--extra-body.temperature 0, --extra-body.stop+ a,b), human-readable
// integers in dotted values (1k, 2M), negative numbers as values, and the
// last of a repeated flag winning. Each flag has vLLM's type, default and
// choices, vLLM's validation runs, and the result is resolved against the
// scenario schema, so that the scenario is the one a scenario file with
// the same values gives.
//
// Every flag of vllm bench serve (testdata/python-serve-flags.txt, vLLM's
// own snapshot) is either implemented or listed in
// testdata/unsupported.txt with the reason; an unsupported flag given on
// the command line is an error, never ignored. The parity tests keep the
// snapshot, the implemented flags and the list in agreement.
//
// [Format] writes a scenario back as vllm bench serve arguments (only the
// flags that differ from vLLM's defaults), [Quote] and [SplitCommandLine]
// convert between arguments and a shell command line, and [CUE] writes a
// parsed command line as a minimal scenario file.
//
// vbench departs from vLLM where vLLM fails or silently does the wrong
// thing:
//   - a separate value that looks like a negative number (--top-p -0.5) is
//     a value; vLLM's dotted-key rewriting mangles it;
//   - --config=FILE works like --config FILE;
//   - --percentile-metrics refuses unknown names (vLLM silently skips
//     them, including names with spaces around them);
//   - nan and inf are refused where a JSON payload would have to carry
//     them, and NaN/Infinity in dotted JSON values are plain strings;
//   - --seed must be in numpy's seed range 0..2**32-1 up front (vLLM fails
//     when seeding numpy);
//   - malformed --metadata items are errors before the run, not after it;
//   - an empty --request-id-prefix is refused: the scenario cannot tell it
//     from "not set" (vLLM's random bench-<8 hex>- prefix).
//
// vLLM's first stdout line, the parsed Namespace(...), is not printed: it
// holds Python object addresses that no other program can reproduce.
package argv
