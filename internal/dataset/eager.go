package dataset

import "iter"

// eager is the Requests sequence of a kind that builds every request
// before yielding the first (a shuffle needs them all): build's error is
// yielded once, else its requests in order.
func eager(build func() ([]Request, error)) iter.Seq2[Request, error] {
	return func(yield func(Request, error) bool) {
		reqs, err := build()
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
