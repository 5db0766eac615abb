package pipeline

// vllmTemperatureWarning is vLLM's warning, word for word, for a run that
// sets no temperature; vbench serve prints it as vllm bench serve does.
const vllmTemperatureWarning = "WARNING: vllm bench serve no longer sets temperature==0 (greedy) in requests by default. The default will be determined on the server side and can be model/API specific. For the old behavior, include --temperature=0."

// scenarioTemperatureWarning is the same warning for a scenario run, which
// has no --temperature flag: it names the scenario field instead.
const scenarioTemperatureWarning = "WARNING: no temperature is sent in requests (as in vllm bench serve, which no longer sets temperature==0 (greedy) by default). The default will be determined on the server side and can be model/API specific. For greedy sampling, set sampling.temperature: 0 in the scenario (or --set sampling.temperature=0)."

// temperatureWarning returns the warning printed when the scenario sets no
// temperature: vLLM's text in vbench serve's argv mode (argv not nil),
// and one naming the scenario field otherwise.
func temperatureWarning(argv *ArgvMode) string {
	if argv != nil {
		return vllmTemperatureWarning
	}
	return scenarioTemperatureWarning
}
