// Package numpy reproduces, bit for bit, the parts of NumPy (and of
// CPython's random module) whose numbers vbench must match:
//
//   - PCG64 and Generator: np.random.default_rng(seed) and its integers();
//   - MT19937 and RandomState: the Mersenne Twister behind CPython's random
//     and NumPy's legacy np.random.seed / np.random.gamma, and the legacy
//     randint, permutation, shuffle and choice (pandas' DataFrame.sample
//     is RandomState.Choice);
//   - PyRandom: CPython's random.Random (seed, getrandbits, _randbelow,
//     randint, shuffle, choice, choices, sample);
//   - PairwiseSum, Mean, Var, Std, Median and Percentile: numpy's pairwise
//     summation and its default ("linear") percentile.
//
// It is a leaf package: it imports no other vbench package. Its golden
// values come from NumPy, CPython and pandas themselves (testdata/gen.py and
// testdata/gen_pyrandom.py, run with Debian's python3-numpy and
// python3-pandas; the tests only read the files they wrote).
package numpy
