"""What the engine writes for people and files: plain data, TOML, config files, help."""
