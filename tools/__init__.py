"""Developer tools that write product files from the Python sources (``make vocabulary``)."""
