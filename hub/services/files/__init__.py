"""Files: the attachment store (``store``: the interface and the local store; ``store_s3``:
an S3 bucket), attachment states and fetch requests (``attachments``), and the store's cleanup."""
