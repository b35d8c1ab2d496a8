"""The example strategy files the docs walk through (docs/strategies.md). The package ships
them as dominosim.examples: copy one to start your own."""
