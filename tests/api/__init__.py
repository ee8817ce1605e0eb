"""The HTTP edge: routes, validation, errors, bounds, headers, serving."""
