"""Attachments and the file stores."""
