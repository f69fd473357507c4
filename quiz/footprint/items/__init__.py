"""The memory items: one module per quantity (model states, activations, adapters, offloaded
states, inference weights and KV cache, the serving engine's working memory, storage), each
counting bytes from a resolved spec."""
