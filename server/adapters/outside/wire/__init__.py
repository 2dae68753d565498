"""The router step's wire formats, sans-I/O: bytes in, checked values out.

NAT-PMP (`natpmp`, RFC 6886), PCP (`pcp`, RFC 6887), UPnP-IGD's SSDP, descriptions and
SOAP (`upnp`), the little HTTP it rides on (`httpwire`) and a strict XML reader without
entities (`xmlsafe`). Every router answer is hostile until parsed: sizes bounded, formats
strict, and anything else a `ValueError` of the module's own kind. No module here opens a
socket, reads a clock or logs (an import contract in pyproject.toml holds it).
"""
