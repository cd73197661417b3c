"""The Worker's routes, one module per resource; each exports `routes`."""
