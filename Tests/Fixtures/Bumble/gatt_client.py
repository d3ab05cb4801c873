"""
gatt_client.py - what central.py and sim_client.py both do as a Bumble GATT client: find a peer
by its advertised name, discover everything, look characteristics up by UUID, collect
notifications, and print the summary line the Swift tests read.
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


def run_and_summarise(coroutine, timeout):
    """Runs the client to its end or `timeout`, then prints 'SUMMARY {json}'."""
    try:
        summary = asyncio.run(asyncio.wait_for(coroutine, timeout))
        summary['exit_reason'] = 'done'
    except asyncio.TimeoutError:
        summary = {'exit_reason': 'timeout'}
    print('SUMMARY ' + json.dumps(summary), flush=True)
