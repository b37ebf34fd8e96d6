/*
 * tests/vm/ship.c — kmt-ship FILE: the capture to the host through qemu's debug console
 * (I/O port 0xe9, -debugcon file:...), as bytes, between marker lines:
 *   =====KMT-CAPTURE-BEGIN size=N md5=SUM=====\n  <N bytes>  \n=====KMT-CAPTURE-END=====\n
 * A port write is all an emulated guest does per byte: about twice the speed of the
 * second UART with base64 (tests/vm/init falls back to that when this fails).
 * Exit status 0, or 1 (no I/O privilege, unreadable file).
 *
 * Build: gcc -static -O2 -o kmt-ship ship.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <unistd.h>

#define PORT 0xe9

static void put(const void *p, size_t n)
{
	outsb(PORT, p, n);
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16];
	char line[256];
	FILE *f;
	size_t n;

	if (argc != 4) {
		fprintf(stderr, "usage: kmt-ship FILE SIZE MD5\n");
		return 2;
	}
	if (iopl(3) < 0) {
		perror("kmt-ship: iopl");
		return 1;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	snprintf(line, sizeof(line), "\n=====KMT-CAPTURE-BEGIN size=%s md5=%s=====\n", argv[2], argv[3]);
	put(line, strlen(line));
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		put(buf, n);
	fclose(f);
	snprintf(line, sizeof(line), "\n=====KMT-CAPTURE-END=====\n");
	put(line, strlen(line));
	return 0;
}
