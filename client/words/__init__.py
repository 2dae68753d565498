"""Every word war-client shows: the catalogs, and the sentences, standings, results, talk,
seat requests, countdown and links built from a view in the viewer's language."""
