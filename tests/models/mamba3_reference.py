"""Mamba-3's published equations, transcribed independently in float64 in the reference's own
layout and names, for the tests to hold our kernels and mixer to. Not our code's form: no
rotated-state frame, no chunks, the rotary pairs as complex numbers.

Transcribed from state-spaces/mamba at commit e9594ce1c732d97440f0332fdc43170a2294dbfa:

- `step_scan`: the maths of `mamba3_siso_step_ref` in tests/ops/triton/test_mamba3_siso.py,
  the reference's recurrent (decode) step of the SISO layer;
- `mimo_step_scan`: the maths of `mamba3_MIMO_step_ref` in tests/ops/tilelang/test_mamba3_mimo.py,
  the same for MIMO (without its fused output norm);
- `mixer_forward`: `Mamba3.forward` and `Mamba3._preprocess` in mamba_ssm/modules/mamba3.py
  (`is_outproj_norm=False`, its default), with `heavy_tail_activation` from the same file and
  `rms_norm_ref` of mamba_ssm/ops/triton/layernorm_gated.py for B_norm and C_norm.
"""

import math

import torch


def rotary(t: torch.Tensor, angle_state: torch.Tensor) -> torch.Tensor:
    """``t`` [..., d_state] with entries (2i, 2i + 1), i < S, read as the complex number
    t_2i + i t_2i+1 and multiplied by exp(i angle_state[..., i]); ``angle_state`` [..., S]. The
    entries past 2S are left as they are (the reference pads cos with 1 and sin with 0)."""
    S = angle_state.shape[-1]
    turned = torch.view_as_complex(t[..., :2 * S].unflatten(-1, (S, 2)).contiguous())
    turned = torch.view_as_real(turned * torch.exp(1j * angle_state)).flatten(-2)
    return torch.cat([turned, t[..., 2 * S:]], dim=-1)


def step_scan(Q, K, V, ADT, DT, Trap, Q_bias, K_bias, Angles, D=None, Z=None,
              Input_States=None):
    """The reference step applied to every token in turn.

    Args (the reference's names and shapes):
        Q, K: (batch, seqlen, nheads, d_state), C and B after their norms.
        V: (batch, seqlen, nheads, headdim), x.
        ADT, DT, Trap: (batch, nheads, seqlen): A dt, dt, and the trapezoid's logit.
        Q_bias, K_bias: (nheads, d_state).
        Angles: (batch, seqlen, nheads, S), the angle projection (before its tanh).
        D: (nheads,) or None; Z: (batch, seqlen, nheads, headdim) or None.
        Input_States: (Angle_State (batch, nheads, S), SSM_State (batch, nheads, headdim,
            d_state), K_State (batch, nheads, d_state), V_State (batch, nheads, headdim)), or
            None for zeros.

    Returns out (batch, seqlen, nheads, headdim) and the four states after the last token.
    """
    batch, seqlen, nheads, d_state = Q.shape
    headdim = V.shape[-1]
    if Input_States is None:
        Input_States = (Q.new_zeros(batch, nheads, Angles.shape[-1]),
                        Q.new_zeros(batch, nheads, headdim, d_state),
                        Q.new_zeros(batch, nheads, d_state), V.new_zeros(batch, nheads, headdim))
    Angle_State, SSM_State, K_State, V_State = Input_States
    outs = []
    for t in range(seqlen):
        dt, adt = DT[:, :, t], ADT[:, :, t]
        # The angle state advances by pi tanh(angle) dt, kept in [0, 2 pi).
        Angle_State = Angle_State + math.pi * torch.tanh(Angles[:, t]) * dt[..., None]
        Angle_State = torch.remainder(Angle_State, 2 * math.pi)
        q = rotary(Q[:, t] + Q_bias, Angle_State)
        k = rotary(K[:, t] + K_bias, Angle_State)
        v = V[:, t]
        trap = torch.sigmoid(Trap[:, :, t])
        alpha = torch.exp(adt)
        beta = (1 - trap) * dt * alpha
        gamma = trap * dt
        SSM_State = (alpha[..., None, None] * SSM_State
                     + beta[..., None, None] * V_State[..., :, None] * K_State[..., None, :]
                     + gamma[..., None, None] * v[..., :, None] * k[..., None, :])
        out = (SSM_State * q[..., None, :]).sum(-1)
        if D is not None:
            out = out + D[:, None] * v
        if Z is not None:
            out = out * Z[:, t] * torch.sigmoid(Z[:, t])
        outs.append(out)
        K_State, V_State = k, v
    return torch.stack(outs, dim=1), (Angle_State, SSM_State, K_State, V_State)


def mimo_step_scan(Q, K, V, ADT, DT, Trap, Q_bias, K_bias, Angles, MIMO_V, MIMO_O, D=None,
                   Z=None, MIMO_Z=None, Input_States=None):
    """The reference MIMO step applied to every token in turn: ``step_scan`` with R inputs and
    outputs a token.

    Args (the reference's names and shapes, R = mimo_rank):
        Q, K: (batch, seqlen, R, nheads, d_state).
        V: (batch, seqlen, nheads, headdim); MIMO_V, MIMO_O, MIMO_Z: (nheads, R, headdim).
        Q_bias, K_bias: (nheads, R, d_state).
        Input_States: as ``step_scan``'s, K_State (batch, nheads, R, d_state) and V_State
            (batch, nheads, R, headdim) (V after MIMO_V).
        The rest as ``step_scan``'s.
    """
    batch, seqlen, R, nheads, d_state = Q.shape
    headdim = V.shape[-1]
    if Input_States is None:
        Input_States = (Q.new_zeros(batch, nheads, Angles.shape[-1]),
                        Q.new_zeros(batch, nheads, headdim, d_state),
                        Q.new_zeros(batch, nheads, R, d_state),
                        V.new_zeros(batch, nheads, R, headdim))
    Angle_State, SSM_State, K_State, V_State = Input_States
    v_proj = torch.einsum("bthd,hrd->btrhd", V, MIMO_V)
    z_proj = None if Z is None else torch.einsum("bthd,hrd->btrhd", Z, MIMO_Z)
    outs = []
    for t in range(seqlen):
        q = (Q[:, t] + Q_bias.transpose(0, 1)).transpose(1, 2)  # (b, h, R, d)
        k = (K[:, t] + K_bias.transpose(0, 1)).transpose(1, 2)
        v = v_proj[:, t].transpose(1, 2)  # (b, h, R, p)
        dt, adt = DT[:, :, t], ADT[:, :, t]
        trap = torch.sigmoid(Trap[:, :, t])
        Angle_State = Angle_State + torch.tanh(Angles[:, t]) * dt[..., None] * math.pi
        q_rot = rotary(q, Angle_State[:, :, None])
        k_rot = rotary(k, Angle_State[:, :, None])
        alpha = torch.exp(adt)
        beta = (1 - trap) * dt * alpha
        gamma = trap * dt
        prev_kv = torch.einsum("bhrd,bhrp->bhpd", K_State, V_State)
        curr_kv = torch.einsum("bhrd,bhrp->bhpd", k_rot, v)
        SSM_State = (alpha[..., None, None] * SSM_State + beta[..., None, None] * prev_kv
                     + gamma[..., None, None] * curr_kv)
        out = torch.einsum("bhpd,bhrd->bhrp", SSM_State, q_rot)
        if D is not None:
            out = out + D[None, :, None, None] * v
        if z_proj is not None:
            z = z_proj[:, t].transpose(1, 2)
            out = out * z * torch.sigmoid(z)
        outs.append(torch.einsum("bhrp,hrp->bhp", out, MIMO_O))
        K_State, V_State = k_rot, v
    return torch.stack(outs, dim=1), (Angle_State, SSM_State, K_State, V_State)


def rms_norm(x, weight, eps):
    return x * (1 / torch.sqrt(x.square().mean(-1, keepdim=True) + eps)) * weight


def mixer_forward(params: dict, u: torch.Tensor, d_state: int, headdim: int, A_floor: float,
                  bc_eps: float, Input_States=None):
    """The layer on ``u`` (batch, seqlen, d_model): out (batch, seqlen, d_model) and the four
    states. ``params`` holds the reference's parameters by its names: in_proj.weight, dt_bias,
    B_bias and C_bias (nheads, mimo_rank, d_state), B_norm.weight, C_norm.weight, D,
    out_proj.weight, and for MIMO mimo_x, mimo_z, mimo_o."""
    nheads, R = params["B_bias"].shape[:2]
    d_inner = nheads * headdim
    S = params["in_proj.weight"].shape[0] - 2 * d_inner - 2 * R * d_state - 3 * nheads
    batch, seqlen, _ = u.shape
    z, x, B, C, dd_dt, dd_A, trap, angles = torch.split(
        u @ params["in_proj.weight"].t(),
        [d_inner, d_inner, R * d_state, R * d_state, nheads, nheads, nheads, S], dim=-1)
    z = z.reshape(batch, seqlen, nheads, headdim)
    x = x.reshape(batch, seqlen, nheads, headdim)
    # heavy_tail_activation: 1 + a for a >= 0, 1 / (1 - a) below; then A <= -A_floor.
    heavy = torch.where(dd_A >= 0, 1 + dd_A, 1 / (1 - dd_A.clamp_max(0)))
    _A = torch.clamp(-heavy, max=-A_floor)
    DT = torch.nn.functional.softplus(dd_dt + params["dt_bias"])
    ADT = (_A * DT).transpose(1, 2)
    DT = DT.transpose(1, 2)
    # (b, l, R * d_state) -> (b, l, R, nheads, d_state), normed over d_state.
    B = rms_norm(B.reshape(batch, seqlen, R, 1, d_state), params["B_norm.weight"], bc_eps)
    C = rms_norm(C.reshape(batch, seqlen, R, 1, d_state), params["C_norm.weight"], bc_eps)
    B, C = B.expand(-1, -1, -1, nheads, -1), C.expand(-1, -1, -1, nheads, -1)
    angles = angles[:, :, None].expand(-1, -1, nheads, -1)
    trap = trap.transpose(1, 2)
    if R == 1:
        y, states = step_scan(C[:, :, 0], B[:, :, 0], x, ADT, DT, trap, params["C_bias"][:, 0],
                              params["B_bias"][:, 0], angles, D=params["D"], Z=z,
                              Input_States=Input_States)
    else:
        y, states = mimo_step_scan(C, B, x, ADT, DT, trap, params["C_bias"], params["B_bias"],
                                   angles, params["mimo_x"], params["mimo_o"], D=params["D"],
                                   Z=z, MIMO_Z=params["mimo_z"], Input_States=Input_States)
    return y.reshape(batch, seqlen, d_inner) @ params["out_proj.weight"].t(), states
