"""Weight quantization: storage layouts (bits per value, scales and zero points per group),
the named schemes (GPTQ, AWQ, bitsandbytes, FP8), GGUF's tensor types, and the plan that applies
a scheme to an architecture's matrices."""
