// Package py reproduces, byte for byte, the Python text vbench must match
// (vLLM writes its result files and console block from Python):
//
//   - Object: a JSON object with dict semantics (insertion order, a
//     repeated key keeps its place and takes the last value); its
//     MarshalJSON writes compact JSON for request bodies;
//   - Dumps and AppendString: json.dumps with its defaults (", " and ": "
//     separators, ensure_ascii, float repr, bare NaN and Infinity);
//   - Loads and LoadsStrict: json.loads into Objects, keeping Python's
//     int/float distinction;
//   - Repr, Fixed and ReprString: repr (= str) of a float, format(f,
//     ".Nf"), repr of a str;
//   - Isoformat: datetime.isoformat of a naive datetime.
//
// It is a leaf package: it imports no other vbench package. Its golden
// values come from CPython itself (testdata/gen.py, run with Debian's
// python3; the tests only read the file it wrote).
package py
