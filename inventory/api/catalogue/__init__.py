"""The catalogue API: status labels, categories, manufacturers, suppliers, locations and asset models."""
