"""numpy_image: zero copy of camera frames. A camera publishes 720 x 1280 RGBA frames
(3.5 MiB each) written in place in shared memory through a numpy array; a viewer reads
them through a numpy array over the publisher's chunk itself.

    python examples/python/numpy_image.py [--frames N]    # default 10 frames

Publisher.loan_array(shape, dtype) lends room for an array and Loan.as_array() views it;
Sample.as_array(dtype, shape) is a read-only array over the sample (nothing is copied on
either side). A view must be gone before its loan is published or its sample released
(else BufferError). Here both sides are in one process; a viewer in another process reads
the same way. Uses $RINGBUS_ROOT if set, else a directory of its own under /dev/shm,
removed at the end.
"""

from __future__ import annotations

import argparse
import os
import shutil

import numpy as np

import ringbus

HEIGHT, WIDTH = 720, 1280
FRAME_BYTES = HEIGHT * WIDTH * 4


def run(root: str, frames: int) -> None:
    with ringbus.Node("camera", root) as node:
        # Frames are large: memory is taken as frames are lent, not for the worst case.
        topic = node.topic("camera/front", max_payload_bytes=FRAME_BYTES, depth=4)
        with topic.publisher() as camera, topic.subscriber() as viewer:
            x = np.arange(WIDTH, dtype=np.uint16)
            for n in range(frames):
                with camera.loan_array((HEIGHT, WIDTH, 4), np.uint8) as loan:  # published at the end
                    image = loan.as_array()  # the chunk in shared memory, as an array
                    image[:, :, 0] = (x + n) % 256  # red: a gradient that moves with n
                    image[:, :, 1] = np.arange(HEIGHT, dtype=np.uint16)[:, None] % 256
                    image[:, :, 2] = n % 256
                    image[:, :, 3] = 255
                    del image  # the view goes before the loan is published

                with viewer.receive(timeout=10.0) as sample:
                    pixels = sample.as_array(np.uint8, (HEIGHT, WIDTH, 4))  # read-only, no copy
                    assert pixels.ctypes.data == sample.address  # the array *is* the chunk
                    assert pixels[360, 640, 0] == (640 + n) % 256 and pixels[360, 640, 2] == n % 256
                    print(f"viewer: frame {sample.position}, {WIDTH}x{HEIGHT} RGBA "
                          f"({len(sample) / (1 << 20):.1f} MiB) read in place "
                          f"at {sample.address:#x}, mean red {pixels[:, :, 0].mean():.1f}")
                    del pixels  # the view goes before the sample is released
            print(f"camera: published {frames} frames of {FRAME_BYTES / (1 << 20):.1f} MiB; it holds "
                  f"{camera.reserved_payload_bytes() / (1 << 20):.1f} MiB of shared memory for them")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=10)
    args = parser.parse_args()
    own = not os.environ.get("RINGBUS_ROOT")
    root = f"/dev/shm/ringbus-example-{os.getpid()}" if own else os.environ["RINGBUS_ROOT"]
    try:
        run(root, args.frames)
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
