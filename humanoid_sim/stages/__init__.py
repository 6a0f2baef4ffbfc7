"""The stages of a World step and what they call (placeholder, completed with the stage modules)."""
