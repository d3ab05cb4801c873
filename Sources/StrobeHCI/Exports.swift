// Every layer above HCI shares the base (bytes, addresses, clocks, waiting) through this module.
@_exported import StrobeBase
