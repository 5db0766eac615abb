package metrics

// TokenAccounting compares two counts of every successful request's
// output: the client tokenizer's count of its generated text and the
// server's usage.completion_tokens. vLLM's client reports one number per
// request (the server's when it has one, see ComputeOutcomes); this says
// how far the two disagree, which a server whose detokenised text does
// not re-tokenise to the same ids, a chat template's stray tokens, or a
// wrong client tokenizer show. Failed and never-sent requests are left out.
type TokenAccounting struct {
	// Compared is the number of successful requests with a server count.
	Compared int
	// Disagreeing is how many of them the two counts differ on.
	Disagreeing int
	// ClientTokens and ServerTokens are the sums of the two counts over
	// the compared requests.
	ClientTokens int
	ServerTokens int
	// SumAbsDiff and MaxAbsDiff are the sum and the largest of
	// |client - server| over the compared requests.
	SumAbsDiff int
	MaxAbsDiff int
	// NoServerUsage is the number of successful requests whose response
	// had no usage.completion_tokens (or 0): vLLM's rule counts their
	// output with the client tokenizer, so there is nothing to compare.
	NoServerUsage int
	// StopTokens is how many compared requests ended on a stop token (the
	// model's EOS, or a stop token id: finish_reason "stop" without a stop
	// string) that the server counted: such a token has no text, so the
	// server's count is the client's plus one, which is agreement.
	StopTokens int
	// StopStrings is the number of successful requests that ended on a
	// stop string: the text is cut before it while the server counts the
	// tokens that made it, so they are not compared.
	StopStrings int
}

// DisagreeingShare is Disagreeing as a percentage of Compared; ok is
// false when nothing was compared.
func (t TokenAccounting) DisagreeingShare() (pct float64, ok bool) {
	if t.Compared == 0 {
		return 0, false
	}
	return 100 * float64(t.Disagreeing) / float64(t.Compared), true
}

// MeanAbsDiff is the mean |client - server| over the compared requests;
// ok is false when nothing was compared.
func (t TokenAccounting) MeanAbsDiff() (mean float64, ok bool) {
	if t.Compared == 0 {
		return 0, false
	}
	return float64(t.SumAbsDiff) / float64(t.Compared), true
}

// add counts one successful request: the server's count (0 when it sent
// none), the client's count of its text, and how it ended.
func (t *TokenAccounting) add(server, client int, stopString, stopToken bool) {
	if server <= 0 {
		t.NoServerUsage++
		return
	}
	if stopString {
		t.StopStrings++
		return
	}
	t.Compared++
	t.ClientTokens += client
	t.ServerTokens += server
	d := client - server
	if d == -1 && stopToken {
		d = 0 // the stop token: counted by the server, without text
		t.StopTokens++
	}
	if d < 0 {
		d = -d
	}
	if d != 0 {
		t.Disagreeing++
	}
	t.SumAbsDiff += d
	t.MaxAbsDiff = max(t.MaxAbsDiff, d)
}
