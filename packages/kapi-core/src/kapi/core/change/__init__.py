"""The change contract ``kapi.change/v1``: operations, results, the change service."""
