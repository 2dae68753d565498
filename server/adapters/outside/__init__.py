"""The way in from outside the house (issue 30): the router, the certificate, the listener."""
