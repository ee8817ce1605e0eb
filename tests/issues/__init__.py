"""Reading the mirror through the API: issues, notes, saved filters, lists."""
