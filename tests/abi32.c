/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * abi32.c - a 32-bit x86 program without libc (tests/stacks-live.sh builds it with -m32
 * -nostdlib -static, so that no 32-bit libc is needed): 300 sleeps of 2 ms through int $0x80
 * (nanosleep is system call 162 on i386), from a named function, then exit.  Its samples
 * carry registers of PERF_SAMPLE_REGS_ABI_32, which wcrec must not unwind as x86-64 ones.
 */
struct ts32 {
	long s, ns;
};

__attribute__((noinline)) static void abi32_sleep(void)
{
	struct ts32 t = { 0, 2000000 };
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(162), "b"(&t), "c"(0) : "memory");
}

void _start(void)
{
	for (int i = 0; i < 300; i++)
		abi32_sleep();
	__asm__ volatile("int $0x80" : : "a"(1), "b"(0));
	for (;;)
		;
}
