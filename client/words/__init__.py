"""Every word war-client shows: the catalogs, and the sentences, standings, results, talk,
seat requests, countdown, links and why connecting failed, in the viewer's language."""
