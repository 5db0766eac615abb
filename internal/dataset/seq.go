package dataset

import "iter"

// collected is the request sequence of a kind that makes all its requests
// before yielding the first (a shuffle or oversampling needs them all):
// gen runs when the sequence is iterated, and its error, if any, is
// yielded once in place of the requests.
func collected(gen func() ([]Request, error)) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		reqs, err := gen()
		if err != nil {
			yield(Request{}, err)
			return
		}
		for i := range reqs {
			if !yield(reqs[i], nil) {
				return
			}
		}
	}
}
