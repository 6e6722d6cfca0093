# cap-readback on the real rxe0: the guest plan's 256-WR queues
# (fixtures/plans/rxe_guest.plan) are granted 511 by rxe (roundup_pow_of_two
# (257) - 1 = 511; on 6.1 ibv_create_qp writes back 256 but ibv_query_qp says
# 511, and LiveDevice takes the larger), so the check WARNs with the rxe
# model's numbers: real rxe's granted caps equal the model's.
name="cap-readback: real rxe grants 511 for 256"
mtu=9000
args=(--plan "$FIXTURES/plans/rxe_guest.plan" -d rxe0 --checks cap-readback)
expect_exit 0
expect cap-readback WARN '256 -> 511'
expect cap-readback WARN 'max_send_wr = 255'
