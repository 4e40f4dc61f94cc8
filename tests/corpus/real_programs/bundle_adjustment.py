"""ADBench's bundle-adjustment reprojection error: Rodrigues rotation (with its small-angle
branch and np.cross), radial distortion, the sum of squared residuals over observations."""

import numpy as np

N_CAM_PARAMS = 11
ROT_IDX, C_IDX, F_IDX, X0_IDX, RAD_IDX = 0, 3, 6, 7, 9


def rodrigues_rotate_point(rot, X):
    sqtheta = np.sum(rot ** 2)
    if sqtheta != 0:
        theta = np.sqrt(sqtheta)
        costheta, sintheta = np.cos(theta), np.sin(theta)
        w = rot / theta
        w_cross_X = np.cross(w, X)
        tmp = np.dot(w, X) * (1.0 - costheta)
        return X * costheta + w_cross_X * sintheta + w * tmp
    return X + np.cross(rot, X)


def radial_distort(rad_params, proj):
    rsq = np.sum(proj ** 2)
    L = 1.0 + rad_params[0] * rsq + rad_params[1] * rsq * rsq
    return proj * L


def project(cam, X):
    Xcam = rodrigues_rotate_point(cam[ROT_IDX:ROT_IDX + 3], X - cam[C_IDX:C_IDX + 3])
    distorted = radial_distort(cam[RAD_IDX:RAD_IDX + 2], Xcam[0:2] / Xcam[2])
    return distorted * cam[F_IDX] + cam[X0_IDX:X0_IDX + 2]


def reprojection_error(cams, X, w, obs, feats):
    err = 0.0
    for i, (cam_idx, pt_idx) in enumerate(obs):
        proj_err = project(cams[cam_idx], X[pt_idx]) - feats[i]
        err += w[i] ** 2 * np.sum(proj_err ** 2)
    return err


def _case():
    from . import Case
    rng = np.random.default_rng(15)
    cams = np.concatenate([0.1 * rng.standard_normal((3, 3)), 0.1 * rng.standard_normal((3, 3)),
                           rng.uniform(0.8, 1.2, (3, 1)), 0.1 * rng.standard_normal((3, 2)),
                           0.01 * rng.standard_normal((3, 2))], axis=1)
    X = rng.standard_normal((4, 3)) + np.array([0.0, 0.0, 5.0])
    w = rng.uniform(0.5, 1.0, 6)
    obs = np.array([[0, 0], [0, 1], [1, 2], [1, 3], [2, 0], [2, 2]])
    feats = 0.2 * rng.standard_normal((6, 2))
    return Case(reprojection_error, (cams, X, w, obs, feats), wrt=(0, 1))


CASE = _case()
