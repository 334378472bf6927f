"""The formula front door above the models."""
