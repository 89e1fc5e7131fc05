/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwprog.c - the program of testdata/perf/dwarf.data (see README there): no libc, no frame
 * pointers, call frame information only; 12 naps of 2 ms through dw_main -> dw_outer ->
 * dw_middle -> dw_inner -> the nanosleep system call, from a _start whose CFI marks it the
 * outermost frame (as glibc's does), then exit.
 */
struct ts {
	long s, ns;
};

__attribute__((noinline)) static long dw_inner(long n)
{
	struct ts t = { 0, 2000000 };
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(35), "D"(&t), "S"(0) : "rcx", "r11", "memory");
	return r + n;
}

__attribute__((noinline)) static long dw_middle(long n)
{
	long r = dw_inner(n + 1);

	__asm__ volatile("" : "+r"(r) : : "memory");
	return r + 2;
}

__attribute__((noinline)) static long dw_outer(long n)
{
	long r = dw_middle(n * 2);

	__asm__ volatile("" : "+r"(r) : : "memory");
	return r - 1;
}

__attribute__((noinline, used)) void dw_main(void)
{
	long sum = 0;

	for (long i = 0; i < 12; i++)
		sum += dw_outer(i);
	__asm__ volatile("syscall" : : "a"(60), "D"(sum & 0));
	for (;;)
		;
}

__asm__(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	".cfi_startproc\n"
	".cfi_undefined rip\n"
	"\txorl %ebp, %ebp\n"
	"\tandq $-16, %rsp\n"
	"\tcall dw_main\n"
	"\thlt\n"
	".cfi_endproc\n"
	".size _start, . - _start\n");
