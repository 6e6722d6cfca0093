# gpu-node04.profile: made by tools/fleet/testdata/make_fleet.sh (rdmacheck capture's
# format): a healthy gpu-node with firmware 20.28.2006 where its peers run 20.31.1014.
rdmacheck-profile 1
provenance made by tools/fleet/testdata/make_fleet.sh from mlx5_symbol_errors.profile; not a capture

[host]
hostname gpu-node04
kernel 5.15.0-105-generic
memlock_soft unlimited
memlock_hard unlimited
mem_total 540805009408
rxe_loaded no
is_root yes
in_container no
sysfs_infiniband yes
dev_infiniband yes
providers mlx5 mlx4 rxe efa
sysctl net.ipv4.conf.all.rp_filter 2
sysctl net.ipv4.conf.default.rp_filter 2
uptime_s 1296000

[device mlx5_0]
driver mlx5
node_type CA
transport InfiniBand
node_guid b8ce:f603:00a1:b204
sys_image_guid b8ce:f603:00a1:b204
fw_ver 20.28.2006
hw_ver 0x0
vendor_id 0x02c9
vendor_part_id 4123
board_id MT_0000000222
netdev ens1f0np0
uverbs uverbs0
attr atomic_cap 1
attr device_cap_flags 0xed721c36
attr local_ca_ack_delay 16
attr max_ah 2147483647
attr max_cq 16777216
attr max_cqe 4194303
attr max_mcast_grp 2097152
attr max_mcast_qp_attach 240
attr max_mr 16777216
attr max_mr_size 0xffffffffffffffff
attr max_mw 16777216
attr max_pd 8388608
attr max_pkeys 128
attr max_qp 262144
attr max_qp_init_rd_atom 16
attr max_qp_rd_atom 16
attr max_qp_wr 32768
attr max_res_rd_atom 4194304
attr max_sge 30
attr max_sge_rd 30
attr max_srq 8388608
attr max_srq_sge 31
attr max_srq_wr 32767
attr max_total_mcast_qp_attach 503316480
attr page_size_cap 0xfffffffffffff000
attr phys_port_cnt 1
pci_address 0000:3b:00.0
pci_link_speed 16.0 GT/s PCIe
pci_link_width 16
pci_max_link_speed 16.0 GT/s PCIe
pci_max_link_width 16
numa_node 0
aer correctable 12
aer fatal 0
aer nonfatal 0
aer_after correctable 12
aer_after fatal 0
aer_after nonfatal 0

[port mlx5_0 1]
state ACTIVE
phys_state LinkUp
link_layer Ethernet
active_mtu 4096
max_mtu 4096
rate 100 Gb/sec (4X EDR)
active_speed 32
active_width 2
gid_tbl_len 255
lid 0
sm_lid 0
pkey_tbl_len 1
max_msg_sz 1073741824
gid 0 fe80::bace:f6ff:fea1:b204 RoCEv1 ens1f0np0
gid 1 fe80::bace:f6ff:fea1:b204 RoCEv2 ens1f0np0
gid 2 ::ffff:10.10.1.4 RoCEv1 ens1f0np0
gid 3 ::ffff:10.10.1.4 RoCEv2 ens1f0np0
hw_counter duplicate_request 0
hw_counter implied_nak_seq_err 0
hw_counter local_ack_timeout_err 3
hw_counter np_cnp_sent 1204
hw_counter out_of_buffer 0
hw_counter out_of_sequence 12
hw_counter packet_seq_err 0
hw_counter req_cqe_error 0
hw_counter rnr_nak_retry_err 0
hw_counter rp_cnp_handled 1187
counter link_downed 0
counter link_error_recovery 1
counter port_rcv_data 81238734112
counter port_rcv_errors 0
counter port_rcv_packets 1902384711
counter port_xmit_data 79237487321
counter port_xmit_discards 0
counter port_xmit_packets 1873490210
counter symbol_error 0
hw_counter_after duplicate_request 0
hw_counter_after implied_nak_seq_err 0
hw_counter_after local_ack_timeout_err 3
hw_counter_after np_cnp_sent 1204
hw_counter_after out_of_buffer 0
hw_counter_after out_of_sequence 12
hw_counter_after packet_seq_err 0
hw_counter_after req_cqe_error 0
hw_counter_after rnr_nak_retry_err 0
hw_counter_after rp_cnp_handled 1187
counter_after link_downed 0
counter_after link_error_recovery 1
counter_after port_rcv_data 81338734112
counter_after port_rcv_errors 0
counter_after port_rcv_packets 1902584711
counter_after port_xmit_data 79337487321
counter_after port_xmit_discards 0
counter_after port_xmit_packets 1873690210
counter_after symbol_error 0

[netdev ens1f0np0]
mtu 9000
operstate up
ifindex 6
addrs 10.10.1.4/24 fe80::bace:f6ff:fea1:b204/64

[window]
ms 2004
started 2026-11-30T08:15:00Z
watched mlx5_0
