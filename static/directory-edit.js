/* Editing pages: optional comforts on top of forms that work without JavaScript.
   - "↑"/"↓" move an entry in place instead of reloading the page;
   - forms with data-confirm ask before deleting. */
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
      return;
    }
    var list = form.closest("[data-reorder]");
    var direction = form.querySelector("input[name=direction]");
    if (!list || !direction || !window.fetch) return;
    event.preventDefault();
    var item = form.closest("li");
    var button = form.querySelector("button");
    fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin"
    }).then(function (response) {
      return response.json().then(function (data) { return { ok: response.ok, data: data }; });
    }).then(function (result) {
      if (!result.ok || result.data.outcome !== "saved") {
        window.location.reload();
        return;
      }
      if (direction.value === "up" && item.previousElementSibling) {
        list.insertBefore(item, item.previousElementSibling);
      } else if (direction.value === "down" && item.nextElementSibling) {
        list.insertBefore(item.nextElementSibling, item);
      }
      refresh(list, result.data.versions);
      item.classList.add("entry--moved");
      window.setTimeout(function () { item.classList.remove("entry--moved"); }, 1200);
      if (button.disabled) {
        var other = item.querySelector("input[name=direction][value=" +
          (direction.value === "up" ? "down" : "up") + "]");
        if (other) other.form.querySelector("button").focus();
      } else {
        button.focus();
      }
    }).catch(function () { window.location.reload(); });
  });

  function refresh(list, versions) {
    var items = list.children;
    for (var i = 0; i < items.length; i++) {
      var id = items[i].id.split("-").pop();
      var inputs = items[i].querySelectorAll("input[name=version]");
      for (var j = 0; j < inputs.length; j++) {
        if (versions[id] !== undefined) inputs[j].value = versions[id];
      }
      var up = items[i].querySelector("input[name=direction][value=up]");
      var down = items[i].querySelector("input[name=direction][value=down]");
      if (up) up.form.querySelector("button").disabled = i === 0;
      if (down) down.form.querySelector("button").disabled = i === items.length - 1;
    }
  }
})();
