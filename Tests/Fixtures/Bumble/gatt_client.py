"""
gatt_client.py - what central.py and sim_client.py both do as a Bumble GATT client: find a peer
by its advertised name, discover everything, look characteristics up by UUID, read the GAP
service's name and appearance, collect notifications, and print the summary line the Swift
tests read.
"""
import asyncio
import json


async def scan_for(device, name):
    """Scans (active) until an advertisement with the complete local name `name`; returns it."""
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement):
        seen = advertisement.data.get(advertisement.data.COMPLETE_LOCAL_NAME)
        if seen in (name, name.encode()) and not found.done():
            found.set_result(advertisement)
    device.on('advertisement', on_advertisement)
    await device.start_scanning(active=True)
    advertisement = await found
    await device.stop_scanning()
    return advertisement


async def discover_all(peer, summary):
    """Discovers every service and characteristic; lists them in `summary`; returns the
    characteristics by upper-case UUID string."""
    await peer.discover_services()
    characteristics = {}
    summary['services'] = []
    for service in peer.services:
        await service.discover_characteristics()
        summary['services'].append(str(service.uuid))
        for characteristic in service.characteristics:
            characteristics[str(characteristic.uuid).upper()] = characteristic
    return characteristics


def find(characteristics, uuid):
    """The characteristic whose UUID is `uuid` (a 16-bit UUID matches its 128-bit form)."""
    wanted = uuid.upper()
    for key, value in characteristics.items():
        if key.endswith(wanted) or wanted.endswith(key.split(':')[-1]):
            return value
    raise KeyError(uuid)


async def collect_notifications(peer, characteristic, count):
    """Subscribes and returns the first `count` values, as hex."""
    notifications = []
    done = asyncio.get_running_loop().create_future()

    def on_value(value):
        notifications.append(bytes(value).hex())
        if len(notifications) >= count and not done.done():
            done.set_result(None)
    await peer.subscribe(characteristic, on_value)
    await done
    return notifications[:count]


async def read_gap(peer):
    """Device Name (0x2A00) and Appearance (0x2A01), read by type as a phone does on connecting."""
    from bumble.core import UUID
    names = await peer.read_characteristics_by_uuid(UUID.from_16_bits(0x2A00))
    appearances = await peer.read_characteristics_by_uuid(UUID.from_16_bits(0x2A01))
    return {
        'device_name': bytes(names[0]).decode() if names else None,
        'appearance': int.from_bytes(bytes(appearances[0]), 'little') if appearances else None,
    }


def run_and_summarise(coroutine, timeout):
    """Runs the client to its end or `timeout`, then prints 'SUMMARY {json}'."""
    try:
        summary = asyncio.run(asyncio.wait_for(coroutine, timeout))
        summary['exit_reason'] = 'done'
    except asyncio.TimeoutError:
        summary = {'exit_reason': 'timeout'}
    print('SUMMARY ' + json.dumps(summary), flush=True)
