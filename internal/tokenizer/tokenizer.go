// Package tokenizer provides the client-side tokenizers vbench uses to build
// prompts of exact token lengths and to count output tokens: Hugging Face
// tokenizer.json files (HF), tiktoken encodings, built in or from rank
// files (Tiktoken), and a server's /tokenize and /detokenize (Server).
// Resolve chooses among them as vLLM does, downloading from the Hugging
// Face Hub through package hub.
package tokenizer

// Tokenizer encodes text to token ids and back, with the few facts about its
// vocabulary that vLLM's dataset code relies on.
//
// Implementations must be safe for concurrent use: the dataset package
// encodes and decodes prompts on several goroutines at once.
type Tokenizer interface {
	// Name identifies the tokenizer (e.g. "o200k_base" or a repo id).
	Name() string
	// Encode returns the token ids of text. With addSpecial, the special
	// tokens the tokenizer adds around a sequence (e.g. BOS) are included.
	Encode(text string, addSpecial bool) []int
	// Decode returns the text of ids; invalid UTF-8 becomes U+FFFD, as
	// Hugging Face's lossy decode does.
	Decode(ids []int) string
	// VocabSize is the base vocabulary size (added tokens excluded), as
	// Hugging Face's tokenizer.vocab_size.
	VocabSize() int
	// SpecialIDs are the ids of all special tokens (all_special_ids).
	SpecialIDs() []int
	// NumSpecialTokensToAdd is how many special tokens Encode adds with
	// addSpecial (num_special_tokens_to_add()).
	NumSpecialTokensToAdd() int
}
