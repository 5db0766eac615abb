// Package pipeline runs one scenario run: it prepares the stages
// (tokenizer, target, dataset, backend client, schedule), checks the
// endpoint is ready, warms it up, executes the timed run through the
// dispatcher (internal/run) with its sinks (the streamed records file, the
// metrics accumulator, the progress bar), and reports the result: the
// console text through a report.RunObserver, and the result files.
// Experiment shapes (sweep, repeat, compare) are internal/experiment's:
// they expand into single runs made here.
package pipeline
