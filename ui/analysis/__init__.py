"""The analysis pages' parts: showing a chart with its caption, data and selection, the split filter, and the
published annotation layers' sections."""
