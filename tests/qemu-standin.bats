#!/usr/bin/env bats
# Tests of qemu-boot/run.sh with a stand-in for qemu-system-x86_64 (a
# script that writes a console log as the guest would): the verdicts
# that depend on how the guest ends, with no kernel and no guest; and
# tools/stress.sh with the stand-in guest of tests/fixtures/stress (no
# kernel, no QEMU).  qemu.bats boots the real boot kernel, stress.bats
# stresses it.

load test_helper

setup() {
	export WF_CACHE=$BATS_TEST_TMPDIR/cache
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	: >"$BATS_TEST_TMPDIR/bzImage"
	: >"$BATS_TEST_TMPDIR/initrd"
}

# standin_qemu END: a stand-in QEMU that writes a complete, passing TAP
# run to its serial console, then powers off (END "off") or hangs until
# it is stopped (END "hang").
standin_qemu() {
	cat >"$BATS_TEST_TMPDIR/bin/qemu-system-x86_64" <<QEMU
#!/bin/sh
[ "\$1" != --version ] || { echo 'QEMU emulator version 0 (stand-in)'; exit 0; }
while [ \$# -gt 0 ]; do
	case \$1 in -serial) log=\${2#file:} ;; esac
	shift
done
printf 'TAP version 13\\n1..2\\nok 1 - smoke\\nok 2 - more\\n' >"\$log"
[ "$1" = off ] || exec sleep 300
QEMU
	chmod +x "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
}

# boot: run.sh on the stand-in, TCG, a timeout of 2 s.
boot() {
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$QEMU_BOOT/run.sh" -A tcg -t 2 -i "$BATS_TEST_TMPDIR/initrd" \
		-l "$BATS_TEST_TMPDIR/console.log" "$BATS_TEST_TMPDIR/bzImage"
	echo "$output"
}

@test "runner: a guest that prints a complete, passing TAP run and then hangs fails the boot" {
	# Powered off after it: a pass.
	standin_qemu off
	boot
	[ "$status" -eq 0 ]
	[[ $output == *"PASS: 2 tests, 0 skipped"* ]]
	# The same console, and the guest never powers off: it hung.
	standin_qemu hang
	boot
	[ "$status" -eq 1 ]
	[[ $output == *"FAIL: guest hung: killed after 2s (last line: ok 2 - more)"* ]]
	grep -qx 'ok 2 - more' "$BATS_TEST_TMPDIR/console.log"
}

@test "runner: without -t, a TCG guest has 180 s, a KVM one 60 s" {
	# TCG is some ten times slower than KVM: a default made for KVM kills
	# a slow TCG boot that would have passed.
	standin_qemu off
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$QEMU_BOOT/run.sh" -A tcg -i "$BATS_TEST_TMPDIR/initrd" \
		-l "$BATS_TEST_TMPDIR/console.log" "$BATS_TEST_TMPDIR/bzImage"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"(tcg -cpu max -smp 1, timeout 180s, "* ]]
	[[ -r /dev/kvm && -w /dev/kvm ]] || skip "no usable /dev/kvm here: the KVM default is not tried"
	# A probe kept for this boot and this QEMU: KVM with -cpu host.
	mkdir -p "$WF_CACHE/branches/6.1/boot"
	printf '%s %s\nhost\n' "$(cat /proc/sys/kernel/random/boot_id)" "QEMU emulator version 0 (stand-in)" \
		>"$WF_CACHE/branches/6.1/boot/kvm-probe"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$QEMU_BOOT/run.sh" -A kvm -i "$BATS_TEST_TMPDIR/initrd" \
		-l "$BATS_TEST_TMPDIR/console.log" "$BATS_TEST_TMPDIR/bzImage"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"(kvm -cpu host -smp 1, timeout 60s, "* ]]
}

@test "runner: a line of bad-console.txt that is blank or an indented comment is no pattern" {
	local wf=$BATS_TEST_TMPDIR/wf
	mkdir -p "$wf/tools/lib" "$wf/qemu-boot"
	cp "$TOOLS/lib.sh" "$wf/tools/"
	cp "$TOOLS/lib/run.sh" "$wf/tools/lib/"
	cp "$QEMU_BOOT/run.sh" "$QEMU_BOOT/ktap.awk" "$QEMU_BOOT/bad-console.txt" "$wf/qemu-boot/"
	printf '   \n\t# an indented comment\n' >>"$wf/qemu-boot/bad-console.txt"
	printf '[    0.000000] Linux version 6.1\n\t# an indented comment\nTAP version 13\n1..1\nok 1 - smoke\n' \
		>"$BATS_TEST_TMPDIR/c.log"
	run "$wf/qemu-boot/run.sh" -c "$BATS_TEST_TMPDIR/c.log"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 1 tests, 0 skipped" ]
}

@test "stress: a guest that runs long says every WF_PROGRESS_INTERVAL seconds how far it is" {
	setup_fixture
	"$TOOLS/rebuild.sh" 2>/dev/null
	printf 'not a kernel\n' >"$BATS_TEST_TMPDIR/bzImage"
	# Two programs of 3 s each; a line a second.
	WF_TEST_STRESS_RUN=$REPO_ROOT/tests/fixtures/stress/run.sh \
		WF_TEST_STRESS_MKINITRAMFS=$REPO_ROOT/tests/fixtures/stress/mkinitramfs.sh FIXTURE_STRESS_DELAY=3 \
		WF_PROGRESS_INTERVAL=1 run "$TOOLS/stress.sh" -f -k "$BATS_TEST_TMPDIR/bzImage" -n 20 -T 1 -t 60 -P fuzz,threads
	echo "$output"
	[ "$status" -eq 0 ]
	# Before 3 s nothing has finished; then the fuzzer has.
	[[ $output =~ "stress: the debug guest is running, 0m0"[0-9]"s, 3 line(s) of console so far, no program finished yet" ]]
	[[ $output =~ "stress: the debug guest is running, 0m0"[0-9]"s, "[0-9]+" line(s) of console so far, last finished: 20-fuzz (ok)" ]]
	# None after the guest ended.
	[[ ${output#*"the debug kernel: PASS"} != *"is running"* ]]
	# The default: one a minute.
	grep -q 'WF_PROGRESS_INTERVAL seconds (default 60)' "$TOOLS/stress.sh"
}

# arm64_image FILE: an empty arm64 Image: its header's magic, "ARM\x64"
# at offset 56, and nothing else.
arm64_image() {
	head -c 56 /dev/zero >"$1"
	printf 'ARM\x64' >>"$1"
	head -c 4 /dev/zero >>"$1"
}

# standin_aarch64: a stand-in qemu-system-aarch64 that keeps its
# arguments in BATS_TEST_TMPDIR/args and writes a passing TAP run.
standin_aarch64() {
	cat >"$BATS_TEST_TMPDIR/bin/qemu-system-aarch64" <<QEMU
#!/bin/sh
printf '%s\\n' "\$@" >"$BATS_TEST_TMPDIR/args"
while [ \$# -gt 0 ]; do
	case \$1 in -serial) log=\${2#file:} ;; esac
	shift
done
printf 'TAP version 13\\n1..1\\nok 1 - smoke\\n' >"\$log"
QEMU
	chmod +x "$BATS_TEST_TMPDIR/bin/qemu-system-aarch64"
}

@test "runner: an arm64 Image boots under qemu-system-aarch64, virt, a CPU with AArch32 at EL0, on TCG" {
	arm64_image "$BATS_TEST_TMPDIR/Image"
	standin_aarch64
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$QEMU_BOOT/run.sh" -t 5 -i "$BATS_TEST_TMPDIR/initrd" \
		-l "$BATS_TEST_TMPDIR/console.log" "$BATS_TEST_TMPDIR/Image"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"(tcg -cpu cortex-a57 -smp 1"* ]]
	[[ $output == *"PASS: 1 tests, 0 skipped"* ]]
	grep -qx virt "$BATS_TEST_TMPDIR/args"
	grep -qx cortex-a57 "$BATS_TEST_TMPDIR/args"
	grep -q '^console=ttyAMA0 .*sysctl_syscall=on' "$BATS_TEST_TMPDIR/args"
	# An x86 image still goes to qemu-system-x86_64, which is not there.
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$QEMU_BOOT/run.sh" -A tcg -t 5 -i "$BATS_TEST_TMPDIR/initrd" \
		-l "$BATS_TEST_TMPDIR/console.log" "$BATS_TEST_TMPDIR/bzImage"
	if ! command -v qemu-system-x86_64 >/dev/null; then
		[ "$status" -eq 2 ]
	else
		[[ $output == *"(tcg -cpu max"* ]]
	fi
}

@test "runner: an arm64 guest refuses KVM, and names the package when qemu-system-aarch64 is missing" {
	arm64_image "$BATS_TEST_TMPDIR/Image"
	standin_aarch64
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$QEMU_BOOT/run.sh" -A kvm -i "$BATS_TEST_TMPDIR/initrd" \
		-l "$BATS_TEST_TMPDIR/console.log" "$BATS_TEST_TMPDIR/Image"
	[ "$status" -eq 2 ]
	[[ $output == *"KVM cannot run an arm64 guest on this host: use -A tcg"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/args" ]
	rm "$BATS_TEST_TMPDIR/bin/qemu-system-aarch64"
	# A PATH without it (the test's own bin and the system's, where the
	# package may be installed: hide it behind a directory of links).
	mkdir "$BATS_TEST_TMPDIR/path"
	local t
	for t in bash env git dirname basename readlink realpath cat cut sort wc od tr head tail sed grep awk mktemp date bc timeout rm mv mkdir printf sleep flock; do
		ln -sf "$(command -v "$t")" "$BATS_TEST_TMPDIR/path/$t" 2>/dev/null || true
	done
	PATH=$BATS_TEST_TMPDIR/path run "$QEMU_BOOT/run.sh" -i "$BATS_TEST_TMPDIR/initrd" \
		-l "$BATS_TEST_TMPDIR/console.log" "$BATS_TEST_TMPDIR/Image"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ $output == *"qemu-system-aarch64 not found (apt-get install qemu-system-arm)"* ]]
}
