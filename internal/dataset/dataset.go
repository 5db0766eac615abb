// Package dataset generates benchmark requests from a scenario's dataset
// spec, following vLLM's sampling rules so that the same seed gives the same
// prompts.
package dataset

// Request is one benchmark request before it is sent.
type Request struct {
	// Prompt is the prompt text.
	Prompt string
	// Prompts, when non-nil, makes the request a batch: these prompts are
	// sent together as a list (vLLM's --random-batch-size for embedding
	// backends) and Prompt is empty. PromptLen is then their total.
	Prompts []string
	// PromptLen is the prompt length in tokens as the dataset measured it.
	PromptLen int
	// OutputLen is the requested number of output tokens (max_tokens).
	OutputLen int
	// ID is the request id (x-request-id), "" for none.
	ID string
}
