"""ADBench's LSTM objective: stacked LSTM cells (the state a flat list indexed 2*i),
predictions scored with a log-softmax over the next character."""

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_model(weight, bias, hidden, cell, inp):
    gates = np.concatenate((inp, hidden, inp, hidden)) * weight + bias
    hsize = hidden.shape[0]
    forget = sigmoid(gates[0:hsize])
    ingate = sigmoid(gates[hsize:2 * hsize])
    outgate = sigmoid(gates[2 * hsize:3 * hsize])
    change = np.tanh(gates[3 * hsize:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_predict(w, w2, s, x):
    s2 = s.copy()
    x = x * w2[0]
    for i in range(0, len(s), 2):
        s2[i], s2[i + 1] = lstm_model(w[i], w[i + 1], s[i], s[i + 1], x)
        x = s2[i]
    return x * w2[1] + w2[2], s2


def lstm_objective(main_params, extra_params, state, sequence):
    total = 0.0
    count = 0
    inp = sequence[0]
    all_states = [state]
    for t in range(len(sequence) - 1):
        ypred, new_state = lstm_predict(main_params, extra_params, all_states[t], inp)
        all_states.append(new_state)
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2)
        ygold = sequence[t + 1]
        total += np.sum(ygold * ynorm)
        count += ygold.shape[0]
        inp = ygold
    return -total / count


def _case():
    from . import Case
    rng = np.random.default_rng(16)
    layers, hsize, length = 2, 4, 5
    main_params = 0.5 * rng.standard_normal((2 * layers, 4 * hsize))
    extra_params = 0.5 * rng.standard_normal((3, hsize))
    state = 0.5 * rng.standard_normal((2 * layers, hsize))
    sequence = rng.random((length, hsize))
    return Case(lstm_objective, (main_params, extra_params, state, sequence), wrt=(0, 1))


CASE = _case()
