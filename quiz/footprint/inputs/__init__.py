"""The calculator's inputs: units, model architectures, presets, the fields of the form and the
command line, and the spec with its own validity rules. Nothing here imports a calculation."""
