"""Bumble's reading of HCI packets, field by field: each line on stdin is one H4 packet in hex
(a command, or a Command Complete event); each line on stdout is a JSON object naming Bumble's
class for it and its fields (a command's parameters, or Command Complete's return parameters)
by Bumble's names, in Bumble's order. Numbers are printed as numbers, addresses as
AA:BB:CC:DD:EE:FF, bytes as lower-case hex, a field with one value per set or PHY as a list. A packet Bumble cannot parse gives {"error": ...}."""

import dataclasses
import enum
import inspect
import json
import sys

from bumble.hci import Address, HCI_Command, HCI_Command_Complete_Event, HCI_Object, HCI_Packet


def plain(value):
    if isinstance(value, Address):
        return value.to_string(False)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, enum.Enum):
        return int(value.value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


def names(obj):
    if dataclasses.is_dataclass(obj):
        return [field.name for field in dataclasses.fields(obj)]
    out = []
    for entry in getattr(obj, 'fields', None) or []:
        # A group of arrays (one element per set or PHY) is a list of (name, spec).
        out += [name for name, _ in entry] if isinstance(entry, list) else [entry[0]]
    if not out:
        # Parsed by hand (the per-PHY commands): the constructor names the fields in order.
        out = [name for name in inspect.signature(type(obj).__init__).parameters if name != 'self']
    return out


def fields(obj):
    return [[name, plain(getattr(obj, name))] for name in names(obj) if hasattr(obj, name)]


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            packet = HCI_Packet.from_bytes(bytes.fromhex(line))
            if isinstance(packet, HCI_Command_Complete_Event):
                returned = packet.return_parameters
                out = {'class': type(returned).__name__,
                       'fields': fields(returned) if isinstance(returned, HCI_Object) else []}
            elif isinstance(packet, HCI_Command):
                out = {'class': type(packet).__name__, 'fields': fields(packet)}
            else:
                out = {'error': 'not a command or Command Complete: ' + type(packet).__name__}
        except Exception as error:  # noqa: BLE001 - the test reports what Bumble said
            out = {'error': f'{type(error).__name__}: {error}'}
        print(json.dumps(out), flush=True)


if __name__ == '__main__':
    main()
