"""The schema, its migrations, the models and the engines' connections."""
