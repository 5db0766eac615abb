package argv

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteHelp writes the flag list of vbench serve: every implemented flag
// with its value type, vLLM's default and choices, then the vbench-only
// flags, then the flags vbench does not implement yet with the reason.
// A keyword (from --help=KEYWORD) keeps only the flags whose name contains
// it; "all" or "" keeps everything.
func WriteHelp(w io.Writer, keyword string) error {
	keyword = strings.ReplaceAll(strings.ToLower(keyword), "_", "-")
	keep := func(name string) bool {
		return keyword == "" || keyword == "all" || strings.Contains(name, keyword)
	}
	var implemented, vbenchOnly, notYet []string
	for _, f := range flags {
		if !keep(f.name) {
			continue
		}
		usage := f.name
		if f.metavar != "" {
			usage += " " + f.metavar
			if f.arity == arityStar || f.arity == arityPlus {
				usage += "..."
			}
		}
		help := f.help
		if f.choices != nil {
			help += "; choices: " + strings.Join(f.choices, ", ")
			if f.supported != nil {
				help += " (vbench runs " + strings.Join(f.supported, ", ") + " so far)"
			}
		}
		line := fmt.Sprintf("  %s\tdefault: %s\t%s\n", usage, f.def, help)
		if f.vbenchOnly {
			vbenchOnly = append(vbenchOnly, line)
		} else {
			implemented = append(implemented, line)
		}
	}
	for _, u := range Unsupported() {
		if keep(u[0]) {
			notYet = append(notYet, fmt.Sprintf("  %s\t%s\n", u[0], u[1]))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, s := range []struct {
		title string
		lines []string
	}{
		{"Flags (the defaults are vLLM's):", implemented},
		{"vbench-only flags:", vbenchOnly},
		{"Not supported yet (given on the command line, they are an error):", notYet},
	} {
		if len(s.lines) == 0 {
			continue
		}
		fmt.Fprintf(tw, "\n%s\n", s.title)
		for _, l := range s.lines {
			fmt.Fprint(tw, l)
		}
	}
	if len(implemented)+len(vbenchOnly)+len(notYet) == 0 {
		fmt.Fprintf(tw, "\nNo flag matches %q; --help lists them all.\n", keyword)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, "\nvLLM's argv dialect applies: --flag value or --flag=value, _ for - in names,\n"+
		"unambiguous prefixes (--num-prom 10), --config FILE.yaml (the command line wins),\n"+
		"dotted JSON keys (--extra-body.top_k 5, --extra-body.stop+ a,b), and the last of\n"+
		"a repeated flag wins.\n")
	return err
}
