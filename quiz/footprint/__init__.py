"""The footprint calculator: training vs inference memory and storage, with derivations."""
