#!/usr/bin/env python3
"""
The `e2e` work done by Bumble's own host, for Benchmarks/compare.sh: over H4/TCP to the same
Bumble virtual controller and GATT peripheral that `strobe-bench e2e` uses, connect, exchange the
MTU, discover the test service and its notify characteristic, subscribe, and receive N
notifications. Prints one JSON object: setup_ms, notifications, notifications_per_second,
cpu_us_per_notification (this process, user+system, from the subscription on).
"""
import asyncio
import json
import sys
import time

from bumble import hci
from bumble.device import Device, Peer
from bumble.transport import open_transport

SERVICE = '6E400001-B5A3-F393-E0A9-E50E24DC0001'
NOTIFY = '6E400004-B5A3-F393-E0A9-E50E24DC0001'


async def main(spec, count):
    transport = await open_transport(spec)
    device = Device.with_hci('bench', hci.Address('00:11:22:33:44:55'), transport.source, transport.sink)
    await device.power_on()
    t0 = time.perf_counter()
    connection = await device.connect(hci.Address('F0:F1:F2:F3:F4:F5', hci.Address.RANDOM_DEVICE_ADDRESS))
    peer = Peer(connection)
    await peer.request_mtu(247)
    services = await peer.discover_service(SERVICE)
    characteristics = await peer.discover_characteristics([NOTIFY], services[0])
    done = asyncio.get_running_loop().create_future()
    received = [0]

    def on_value(_):
        received[0] += 1
        if received[0] == count and not done.done():
            done.set_result(None)

    cpu0 = time.process_time()
    await peer.subscribe(characteristics[0], on_value)
    setup = time.perf_counter() - t0
    stream0 = time.perf_counter()
    await done
    stream = time.perf_counter() - stream0
    cpu = time.process_time() - cpu0
    print(json.dumps(dict(setup_ms=round(setup * 1000, 3), notifications=received[0],
                          notifications_per_second=received[0] / stream,
                          cpu_us_per_notification=cpu * 1e6 / received[0])))
    await transport.close()


if __name__ == '__main__':
    spec = sys.argv[1]
    if spec.startswith('tcp:'):
        spec = 'tcp-client:' + spec[4:]
    asyncio.run(main(spec, int(sys.argv[2])))
