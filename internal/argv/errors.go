package argv

import (
	"errors"
	"strings"
)

// Error is a command line vbench serve cannot run: a malformed argument,
// a value vLLM would reject, or a flag vbench does not implement yet. Its
// message is one line naming the flag and what is allowed.
type Error struct {
	// Flag is the flag the problem is about ("--num-prompts"), possibly
	// followed by the value given; empty when the problem is not about one
	// flag (e.g. unrecognized arguments).
	Flag string
	// Msg says what is wrong and what is allowed.
	Msg string
	// Unsupported reports a flag or value vbench does not implement yet.
	Unsupported bool
}

// Error formats e as "--flag: message".
func (e *Error) Error() string {
	msg := strings.ReplaceAll(e.Msg, "\n", " ")
	if e.Flag == "" {
		return msg
	}
	return e.Flag + ": " + msg
}

// ErrHelp is returned (wrapped in a *HelpError) when the command line asks
// for help with -h, --help or --help=KEYWORD.
var ErrHelp = errors.New("help requested")

// HelpError is a request for the flag list, possibly filtered.
type HelpError struct {
	// Keyword, from --help=KEYWORD, filters the flags listed; "" lists all.
	Keyword string
}

// Error returns "help requested".
func (e *HelpError) Error() string { return ErrHelp.Error() }

// Unwrap returns ErrHelp.
func (e *HelpError) Unwrap() error { return ErrHelp }

func flagErr(flag, msg string) *Error { return &Error{Flag: flag, Msg: msg} }
