"""Route groups of the Worker app, each a module exporting `routes`."""
