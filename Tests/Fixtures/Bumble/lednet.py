#!/usr/bin/env python3
"""
lednet.py - LEDnet ("Triones") Bluetooth lights as Bumble GATT peripherals on a virtual LE link,
written from the protocol facts (service FFD5 with write FFD9, service FFD0 with notify FFD4;
Write Commands), with an H4 port for the host under test:

    [host under test] --H4/TCP--> EXT controller ==LocalLink== LIGHT controllers <-> Bumble devices

Each light keeps power, RGB and warm white; answers the state query EF 01 77 with its 12-byte
state 66 15 POWER 4A 41 02 R G B WW 0A 99; takes power (CC 23/24 33), colour (56 R G B 00 F0 AA)
and warm white (56 00 00 00 WW 0F AA); records every command.

Prints 'READY hci=<spec> name=<first name> count=<n>' when every light advertises, and
'SUMMARY {json}' on exit (SIGTERM/SIGINT, --timeout): per light, its state and the commands
received (hex). --silent makes the lights never answer a query.
"""
import argparse
import asyncio
import json
import logging
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble import hci  # noqa: E402
from bumble.core import AdvertisingData  # noqa: E402
from bumble.device import Device  # noqa: E402
from bumble.gatt import Characteristic, CharacteristicValue, Service  # noqa: E402
from bumble.host import Host  # noqa: E402

import vctl  # noqa: E402

log = logging.getLogger('lednet')

WRITE_SERVICE, WRITE = 'FFD5', 'FFD9'
NOTIFY_SERVICE, NOTIFY = 'FFD0', 'FFD4'


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--hci-listen', default='tcp:127.0.0.1:0', help='H4 server for the host under test')
    p.add_argument('--ext-address', default='00:11:22:33:44:55', help="the host controller's public address")
    p.add_argument('--names', default='Triones-A1,LEDBLE-B2', help='comma-separated names, one light each')
    p.add_argument('--address', default='F1:00:00:00:00:01', help='random static address of the first light')
    p.add_argument('--adv-interval-ms', type=float, default=20.0)
    p.add_argument('--silent', action='store_true', help='never answer a state query')
    p.add_argument('--timeout', type=float, default=60.0, help='exit after this many seconds (0 = never)')
    p.add_argument('-v', '--verbose', action='count', default=0)
    return p.parse_args(argv)


class Light:
    def __init__(self, name):
        self.name = name
        self.power = True
        self.rgb = [0x14, 0xE1, 0x76]
        self.white = 0
        self.commands = []

    def state(self):
        return bytes([0x66, 0x15, 0x23 if self.power else 0x24, 0x4A, 0x41, 0x02, *self.rgb, self.white, 0x0A, 0x99])

    def handle(self, value):
        """True when the command asks for the state."""
        self.commands.append(value.hex())
        if value == b'\xef\x01\x77':
            return True
        if len(value) == 3 and value[0] == 0xCC and value[2] == 0x33 and value[1] in (0x23, 0x24):
            self.power = value[1] == 0x23
        elif len(value) == 7 and value[0] == 0x56 and value[6] == 0xAA and value[5] == 0xF0:
            self.rgb, self.white = list(value[1:4]), 0
        elif len(value) == 7 and value[0] == 0x56 and value[6] == 0xAA and value[5] == 0x0F:
            self.rgb, self.white = [0, 0, 0], value[4]
        else:
            log.warning('%s: unknown command %s', self.name, value.hex())
        return False

    def as_dict(self):
        return dict(name=self.name, power=self.power, rgb=self.rgb, white=self.white, commands=self.commands)


async def run(args):
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda s=sig: done.done() or done.set_result(f'signal {s.name}'))

    link = vctl.HarnessLink()
    link.fix_acl_source = True
    hci_server = vctl.HciServer(link, args.hci_listen, public_address=args.ext_address,
                                controller_kwargs=dict(spec_fixes=True))
    lights, devices, tasks = [], [], set()

    def spawn(coro):
        task = loop.create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    names = [n for n in args.names.split(',') if n]
    for i, name in enumerate(names):
        controller = vctl.local_controller(link, f'LIGHT{i + 1}', spec_fixes=True)
        raw = bytearray(bytes(hci.Address(args.address)))
        raw[0] = (raw[0] + i) % 256
        device = Device(name=name, address=hci.Address(bytes(raw)),
                        host=Host(controller_source=controller, controller_sink=controller))
        device.advertising_interval_min = device.advertising_interval_max = args.adv_interval_ms
        device.advertising_data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LOCAL_NAME, name.encode()),
        ]))
        light = Light(name)
        notify = Characteristic(NOTIFY, Characteristic.Properties.NOTIFY, Characteristic.READABLE, b'')

        def on_write(connection, value, light=light, device=device, notify=notify):
            if light.handle(bytes(value)) and not args.silent:
                spawn(device.notify_subscriber(connection, notify, light.state()))

        write = Characteristic(WRITE, Characteristic.Properties.WRITE_WITHOUT_RESPONSE | Characteristic.Properties.WRITE,
                               Characteristic.WRITEABLE, CharacteristicValue(write=on_write))
        device.add_service(Service(WRITE_SERVICE, [write]))
        device.add_service(Service(NOTIFY_SERVICE, [notify]))

        def on_connection(connection, device=device):
            def on_disconnection(reason):
                spawn(device.start_advertising(auto_restart=False))
            connection.on('disconnection', on_disconnection)
        device.on('connection', on_connection)
        lights.append(light)
        devices.append(device)

    for device in devices:
        await device.power_on()
        await device.start_advertising(auto_restart=False)
    address = await hci_server.start()
    spec = f'tcp:{address[0]}:{address[1]}' if isinstance(address, tuple) else f'unix:{address}'
    print(f'READY hci={spec} name={names[0]} count={len(lights)}', flush=True)

    try:
        reason = await (asyncio.wait_for(asyncio.shield(done), args.timeout) if args.timeout > 0 else done)
    except asyncio.TimeoutError:
        reason = 'timeout'
    for task in list(tasks):
        task.cancel()
    print('SUMMARY ' + json.dumps(dict(exit_reason=reason, lights=[light.as_dict() for light in lights])), flush=True)
    hci_server.close()


def main():
    # A parent may spawn us with SIGTERM/SIGINT blocked (the mask survives exec): unblock them.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    args = parse_args()
    level = logging.WARNING if args.verbose == 0 else (logging.INFO if args.verbose == 1 else logging.DEBUG)
    logging.basicConfig(level=level, format='%(asctime)s %(name)s %(levelname)s %(message)s')
    asyncio.run(run(args))


if __name__ == '__main__':
    main()
