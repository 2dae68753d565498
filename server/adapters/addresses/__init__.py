"""Who is at which address, sans-I/O: the client's address behind trusted proxies, the
host names and origins that may reach the server, and the limits of what one address may
take (connections, messages)."""
